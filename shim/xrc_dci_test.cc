// QPs of mlx5 stacks that the shim does not pad (it pads RC and UC QPs
// only, toward their RTR address vector's peer): an XRC_SEND QP
// (libfabric's verbs provider with XRC) and a DCI (UCX's dc transport, made
// by mlx5dv_create_qp as an IBV_QPT_DRIVER QP with DC attributes, with no
// address vector at RTR: each WR names its destination). On the fake mlx5
// personality both are delayed by the latency, and pad mode paces them on
// the port's virtual link instead and says so once.
#include <gtest/gtest.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "emulate/tsc.h"
#include "shim/internal/direct_verbs.h"
#include "shim/internal/fake_mlx5dv.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint32_t kRemoteSrqn = 0x77;

class XrcDciTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    RealVerbs fake = FakeDevice::MakeRealVerbs();
    fake.mlx5dv_create_qp = FakeMlx5dvCreateQp;
    SetRealVerbsForTesting(fake);
  }
  // The open context, PD and CQ of an mlx5 device `d` (and an RC QP).
  Res Mlx5Objects(FakeDevice& d) {
    d.personality = Personality::kMlx5;
    return MakeQp(d, false, /*connect=*/false);
  }
  static ibv_qp_init_attr_ex Attr(const Res& r, ibv_qp_type type) {
    ibv_qp_init_attr_ex a{};
    a.send_cq = r.cq;
    a.recv_cq = r.cq;
    a.cap.max_send_wr = 128;
    a.cap.max_send_sge = 1;
    a.qp_type = type;
    a.sq_sig_all = 1;
    a.comp_mask = IBV_QP_INIT_ATTR_PD;
    a.pd = r.pd;
    return a;
  }
  // ibv_create_qp_ex with only a PD, as libfabric makes an XRC initiator,
  // is libibverbs' ibv_create_qp (the shim's hook).
  static ibv_qp* XrcSendQp(const Res& r) {
    ibv_qp_init_attr_ex a = Attr(r, IBV_QPT_XRC_SEND);
    ibv_qp* qp = CreateQp(r.pd, reinterpret_cast<ibv_qp_init_attr*>(&a));
    EXPECT_NE(qp, nullptr);
    // An XRC initiator's RTR names its peer, as an RC QP's does.
    EXPECT_TRUE(qp != nullptr && ConnectFakeQp(qp));
    return qp;
  }
  static ibv_qp* Dci(const Res& r) {
    ibv_qp_init_attr_ex a = Attr(r, IBV_QPT_DRIVER);
    a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
    mlx5dv_qp_init_attr m{};
    m.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
    m.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
    ibv_qp* qp = Mlx5dvCreateQp(r.ctx, &a, &m);
    EXPECT_NE(qp, nullptr);
    // A DCI's RTR carries no address vector: each WR names its peer.
    EXPECT_TRUE(qp != nullptr &&
                ConnectFakeQp(qp, /*through_shim=*/true, /*with_av=*/false));
    return qp;
  }
  // One SEND on an XRC_SEND QP, to the remote SRQ.
  static int XrcSend(ibv_qp* qp, uint32_t bytes) {
    ibv_sge sge{0x1000, bytes, 1};
    ibv_send_wr wr{};
    wr.wr_id = 7;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.qp_type.xrc.remote_srqn = kRemoteSrqn;
    ibv_send_wr* bad = nullptr;
    return ibv_post_send(qp, &wr, &bad);
  }
  // One RDMA write on a DCI, as UCX's dc transport builds it (the DC
  // address setter is mlx5dv's, not modeled by the fake).
  static int DciWrite(ibv_qp* qp, uint32_t bytes) {
    ibv_qp_ex* x = Real().qp_to_qp_ex(qp);
    ibv_wr_start(x);
    x->wr_id = 9;
    ibv_wr_rdma_write(x, 1, 0x2000);
    ibv_wr_set_sge(x, 1, 0x1000, bytes);
    return ibv_wr_complete(x);
  }
  // A latency of 20 us: one message on a QP from `make`, sent by `send`,
  // reaches the device 20 us later at least.
  template <class MakeFn, class SendFn>
  void ExpectDelayed(MakeFn make, SendFn send) {
    ConfigureLatency(20'000);
    FakeDevice d("mlx5_0");
    Res r = Mlx5Objects(d);
    ibv_qp* qp = make(r);
    ASSERT_NE(qp, nullptr);
    const uint64_t t0 = emulate::ReadTsc();
    ASSERT_EQ(send(qp, 64), 0);
    EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
              Cal().NsToTicks(20'000));
    EXPECT_EQ(d.Posts().size(), 1u);
  }
  // Pad mode at half of a 100 Gbit/s port: two QPs from `make`, the first
  // sending 50 messages of 64 KiB by `send`, take at least 48 messages'
  // time, less the real link's own time for each (as
  // EfaTest.PadModePacesSrdQpsAtTheTargetRate reckons), unpadded; stderr
  // names `type` once, paced instead.
  template <class MakeFn, class SendFn>
  void ExpectPacedInsteadOfPadded(MakeFn make, SendFn send,
                                  const std::string& type) {
    ConfigureBandwidth("50%", 0, emulate::BwMode::kPad, 100e9);
    FakeDevice d("mlx5_0");
    Res r = Mlx5Objects(d);
    ::testing::internal::CaptureStderr();
    ibv_qp* qp = make(r);
    ibv_qp* second = make(r);
    const uint64_t start = emulate::ReadTsc();
    constexpr int kSends = 50;
    for (int i = 0; i < kSends && qp != nullptr; ++i) {
      EXPECT_EQ(send(qp, 65536), 0);
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(qp != nullptr && second != nullptr);
    const double min_ns = (kSends - 2) * 65536 * 8 / 50.0 * (1 - 50.0 / 100.0);
    EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - start), min_ns * 0.99);
    EXPECT_EQ(d.ud_datagrams.load(), 0u) << "padding sent";
    EXPECT_EQ(Counters(qp).pad_bytes, 0u);
    const std::string said = type + " QP 0x";
    ASSERT_NE(err.find(said), std::string::npos) << err;
    EXPECT_EQ(err.find(said, err.find(said) + 1), std::string::npos) << err;
    EXPECT_NE(err.find("is paced instead"), std::string::npos) << err;
  }
};

TEST_F(XrcDciTest, TheFakeMakesDcisAsDriverQpsOnMlx5Only) {
  FakeDevice d("mlx5_0");
  Res r = Mlx5Objects(d);
  ibv_qp* dci = Dci(r);
  ASSERT_NE(dci, nullptr);
  EXPECT_EQ(dci->qp_type, IBV_QPT_DRIVER);
  ibv_qp_init_attr_ex a = Attr(r, IBV_QPT_DRIVER);
  EXPECT_EQ(FakeMlx5dvCreateQp(r.ctx, &a, nullptr), nullptr);  // no DC
  FakeDevice other("rxe0");
  Res o = MakeQp(other, false);
  ibv_qp_init_attr_ex rc = Attr(o, IBV_QPT_RC);
  EXPECT_EQ(FakeMlx5dvCreateQp(o.ctx, &rc, nullptr), nullptr);
}

TEST_F(XrcDciTest, AnXrcSendQpIsDelayed) { ExpectDelayed(XrcSendQp, XrcSend); }

TEST_F(XrcDciTest, ADciIsDelayed) { ExpectDelayed(Dci, DciWrite); }

TEST_F(XrcDciTest, PadModePacesAnXrcSendQpAndSaysSoOnce) {
  ExpectPacedInsteadOfPadded(XrcSendQp, XrcSend, "XRC_SEND");
}

TEST_F(XrcDciTest, PadModePacesADciAndSaysSoOnce) {
  ExpectPacedInsteadOfPadded(Dci, DciWrite, "DRIVER");
}

}  // namespace
}  // namespace verbsemu::shim::internal
