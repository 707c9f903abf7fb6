// libmlx5's gate under the shim: emulated devices report no direct verbs
// (so UCX and NCCL post through verbs), VERBSEMU_DIRECT_VERBS=allow gives
// the real answer and a warning, other devices always get the real answer.
#include "shim/internal/direct_verbs.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <string>

#include "emulate/tsc.h"
#include "shim/internal/fake_qp_ex.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

// libmlx5 as on a ConnectX: direct verbs supported; mlx5dv_create_qp makes
// an ordinary (fake) QP, DEVX objects are opaque handles.
ibv_qp* FakeMlx5dvCreateQp(ibv_context*, ibv_qp_init_attr_ex* a,
                           mlx5dv_qp_init_attr*) {
  ibv_qp_init_attr init{};
  init.send_cq = a->send_cq;
  init.recv_cq = a->recv_cq;
  init.qp_type = a->qp_type;
  ibv_qp* qp = FakeDevice::MakeRealVerbs().create_qp(a->pd, &init);
  if (qp != nullptr && (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0) {
    auto* f = reinterpret_cast<FakeQp*>(qp);
    f->ex = true;
    InstallFakeQpEx(f->qpx, f->ctx->owner->personality, a->qp_type);
  }
  return qp;
}

mlx5dv_devx_obj* FakeDevxObjCreate(ibv_context*, const void*, size_t, void*,
                                   size_t) {
  static char handle;
  return reinterpret_cast<mlx5dv_devx_obj*>(&handle);
}

class DirectVerbsTest : public ShimTest {
 protected:
  // An RC QP's attributes on `r`'s PD and CQ.
  static ibv_qp_init_attr_ex RcAttr(const Res& r) {
    ibv_qp_init_attr_ex attr{};
    attr.send_cq = r.cq;
    attr.recv_cq = r.cq;
    attr.qp_type = IBV_QPT_RC;
    attr.pd = r.pd;
    return attr;
  }
  void SetUp() override {
    ShimTest::SetUp();
    RealVerbs fake = FakeDevice::MakeRealVerbs();
    fake.mlx5dv_is_supported = [](ibv_device*) { return true; };
    fake.mlx5dv_create_qp = FakeMlx5dvCreateQp;
    fake.mlx5dv_devx_obj_create = FakeDevxObjCreate;
    SetRealVerbsForTesting(fake);
  }
  Settings Latency() {
    Settings s;
    s.engine.latency_ns = 1000;
    return s;
  }
};

TEST_F(DirectVerbsTest, EmulatedDeviceReportsNoDirectVerbs) {
  Configure(Latency());
  FakeDevice d("mlx5_0");
  EXPECT_FALSE(Mlx5dvIsSupported(d.device()));
  EXPECT_FALSE(Mlx5dvIsSupported(d.device()));
  Open(d);  // the report lists devices that were opened
  const std::string report = ReportText();
  EXPECT_NE(report.find("answered false 2 times"), std::string::npos) << report;
}

TEST_F(DirectVerbsTest, AllowGivesTheRealAnswerAndWarns) {
  Settings s = Latency();
  s.allow_direct_verbs = true;
  Configure(s);
  FakeDevice d("mlx5_0");
  EXPECT_TRUE(Mlx5dvIsSupported(d.device()));
  EXPECT_NE(ReportText().find("NOT emulated"), std::string::npos);
}

TEST_F(DirectVerbsTest, DevicesNotEmulatedGetTheRealAnswer) {
  Settings s = Latency();
  s.devices = {"mlx5_1"};
  Configure(s);
  FakeDevice other("mlx5_0");
  EXPECT_TRUE(Mlx5dvIsSupported(other.device()));
  Configure(Settings{});  // no knob: the shim emulates nothing
  EXPECT_TRUE(Mlx5dvIsSupported(other.device()));
  EXPECT_EQ(ReportText().find("direct verbs"), std::string::npos);
}

// A stack that creates objects through direct verbs anyway (it ignored the
// gate, or direct verbs were allowed): its mlx5dv QP is still registered,
// and the report warns that mlx5dv traffic is not emulated.
TEST_F(DirectVerbsTest, DirectVerbsObjectsAreCountedAndWarnedAbout) {
  Configure(Latency());
  FakeDevice d("mlx5_0");
  Res r = MakeQp(d, false);
  ibv_qp_init_attr_ex attr = RcAttr(r);
  attr.comp_mask = IBV_QP_INIT_ATTR_PD;
  ibv_qp* qp = Mlx5dvCreateQp(r.ctx, &attr, nullptr);
  ASSERT_NE(qp, nullptr);
  EXPECT_EQ(LiveQpCount(), 2u);  // registered: its ibv_post_send is emulated
  EXPECT_NE(Mlx5dvDevxObjCreate(r.ctx, nullptr, 0, nullptr, 0), nullptr);
  const std::string report = ReportText();
  EXPECT_NE(report.find("WARNING 2 objects made through mlx5 direct verbs"),
            std::string::npos)
      << report;
}

// An mlx5dv QP's ibv_wr_* batch may carry mlx5dv_wr_* calls, which write
// into the provider's open batch: its batches are not held back, the
// provider's wr_start runs at once, and the latency still applies.
TEST_F(DirectVerbsTest, Mlx5dvQpBatchesOpenTheProvidersBatchAtWrStart) {
  Configure(Latency());
  FakeDevice d("mlx5_0");
  Res r = MakeQp(d, false);
  ibv_qp_init_attr_ex attr = RcAttr(r);
  attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
  ibv_qp* qp = Mlx5dvCreateQp(r.ctx, &attr, nullptr);
  ASSERT_NE(qp, nullptr);
  Connect(qp);
  auto* f = reinterpret_cast<FakeQp*>(qp);
  ibv_qp_ex* x = &f->qpx;
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(x);
  EXPECT_TRUE(f->in_batch) << "the provider's batch is open for mlx5dv_wr_*";
  ibv_wr_rdma_write(x, 1, 0x2000);
  ibv_wr_set_sge(x, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(1000));
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
