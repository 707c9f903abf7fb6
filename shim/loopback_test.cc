// Loopback QPs on the fake device: a QP connected to its own port (NCCL's
// flush QP: its own GID and QP number) posts straight through in spin and
// defer modes, in the lean latency-only wrapper and through ibv_wr_*, and is
// not paced; a QP to a peer still is; a topology class naming the local
// address still applies. The fake's GID INDEX of port P is
// ::ffff:10.0.P.INDEX+1.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "settings/knobs.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

constexpr double kLatencyNs = 2e6;  // 2 ms: far above scheduling noise

// Stops the engine (the defer mode's progress thread) before the device
// declared ahead of it is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

class LoopbackTest : public ShimTest {
 protected:
  // Brings `qp` to RTS with its destination at GID ::ffff:10.0.1.FOURTH on
  // port 1 and QP number `dest_qpn`, as NCCL connects its flush QP.
  static void ConnectTo(ibv_qp* qp, uint8_t fourth, uint32_t dest_qpn) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    ASSERT_EQ(ModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest_qpn;
    a.ah_attr.port_num = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.sgid_index = 0;
    const uint8_t gid[16] = {0, 0, 0,    0,    0,  0, 0, 0,
                             0, 0, 0xff, 0xff, 10, 0, 1, fourth};
    std::copy(gid, gid + 16, a.ah_attr.grh.dgid.raw);
    ASSERT_EQ(
        ModifyQp(qp, &a,
                 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN),
        0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTS;
    ASSERT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
  }
  // A QP connected to itself: its own GID (index 0: ::ffff:10.0.1.1), its
  // own QP number.
  Res SelfQp(FakeDevice& d, bool wr_api = false) {
    Res r = MakeQp(d, wr_api, /*connect=*/false);
    ConnectTo(r.qp, 1, r.qp->qp_num);
    return r;
  }
  // Ticks from before a 1-byte RDMA READ's post to its reaching the device.
  static uint64_t ReadTicks(FakeDevice& d, ibv_qp* qp) {
    Chain read(1, 1, IBV_WR_RDMA_READ);
    const uint64_t t0 = emulate::ReadTsc();
    EXPECT_EQ(Post(qp, read), 0);
    return d.last_post_tsc.load() - t0;
  }
  // The fastest of `n` such READs: a loaded host only adds to a post's
  // time, so a bound from above holds for the fastest one.
  static uint64_t FastestReadTicks(FakeDevice& d, ibv_qp* qp, int n) {
    uint64_t fastest = ReadTicks(d, qp);
    for (int i = 1; i < n; ++i) fastest = std::min(fastest, ReadTicks(d, qp));
    return fastest;
  }
  static uint64_t Ticks(double ns) { return Cal().NsToTicks(ns); }
  void ConfigureDefer() {
    emulate::Config c;
    c.latency_ns = kLatencyNs;
    c.latency_mode = emulate::LatencyMode::kDefer;
    Configure(c);
  }
};

TEST_F(LoopbackTest, SelfConnectedReadIsNotDelayedInSpinMode) {
  ConfigureLatency(kLatencyNs);
  FakeDevice d("fake0");
  Res self = SelfQp(d);
  EXPECT_LT(FastestReadTicks(d, self.qp, 3), Ticks(kLatencyNs / 2));
  EXPECT_EQ(Counters(self.qp).delay_ticks, 0u);
  EXPECT_EQ(Counters(self.qp).wrs, 3u);
  // A QP to a peer still waits two one-way latencies for its READ.
  Res peer = MakeQp(d, false);
  EXPECT_GE(ReadTicks(d, peer.qp) + ShimFixedCost(), 2 * Ticks(kLatencyNs));
  const std::string report = ReportText();
  EXPECT_NE(report.find("(loopback QP, not delayed)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("loopback QPs, not delayed: 1"), std::string::npos);
}

// Another QP on the same port is another process's or rank's, reached
// through the NIC: emulated as any peer (the test bed's one-device topology
// is this). Nor is a QP to its own number at another port's address.
TEST_F(LoopbackTest, AnotherQpOnTheSamePortIsAPeer) {
  ConfigureLatency(kLatencyNs);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ConnectTo(r.qp, 1, r.qp->qp_num + 1);  // the port's GID, another QP
  EXPECT_GE(ReadTicks(d, r.qp) + ShimFixedCost(), 2 * Ticks(kLatencyNs));
  // GID index 2 of the port (::ffff:10.0.1.3) is found in its table only
  // when the table is that long: the fake's port has none, so this one is
  // a peer.
  Res other = MakeQp(d, false, /*connect=*/false);
  ConnectTo(other.qp, 3, other.qp->qp_num);
  EXPECT_GE(ReadTicks(d, other.qp) + ShimFixedCost(), 2 * Ticks(kLatencyNs));
}

TEST_F(LoopbackTest, SelfConnectedWrApiReadIsNotDelayed) {
  ConfigureLatency(kLatencyNs);
  FakeDevice d("fake0");
  Res self = SelfQp(d, /*wr_api=*/true);
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(self.qpx);
  ibv_wr_rdma_read(self.qpx, 1, 0x2000);
  ibv_wr_set_sge(self.qpx, 1, 0x1000, 1);
  ASSERT_EQ(ibv_wr_complete(self.qpx), 0);
  EXPECT_LT(d.last_post_tsc.load() - t0, Ticks(kLatencyNs / 2));
  EXPECT_EQ(Counters(self.qp).delay_ticks, 0u);
}

TEST_F(LoopbackTest, SelfConnectedPostIsNotDelayedByTheLeanWrapper) {
  ConfigureLatencyAlone(kLatencyNs);
  FakeDevice d("fake0");
  Res peer = MakeQp(d, false);
  EXPECT_GE(ReadTicks(d, peer.qp) + ShimFixedCost(), 2 * Ticks(kLatencyNs));
  Res self = SelfQp(d);
  EXPECT_LT(ReadTicks(d, self.qp), Ticks(kLatencyNs / 2));
}

TEST_F(LoopbackTest, SelfConnectedPostGoesStraightThroughInDeferMode) {
  ConfigureDefer();
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res self = SelfQp(d);
  Chain read(1, 1, IBV_WR_RDMA_READ);
  ASSERT_EQ(Post(self.qp, read), 0);
  EXPECT_EQ(d.Posts().size(), 1u);  // at the device before the post returned
  // A QP to a peer: held, the device has not seen it yet.
  Res peer = MakeQp(d, false);
  Chain read2(1, 1, IBV_WR_RDMA_READ);
  ASSERT_EQ(Post(peer.qp, read2), 0);
  EXPECT_EQ(d.Posts().size(), 1u);
}

TEST_F(LoopbackTest, SelfConnectedQpIsNotPaced) {
  ConfigureBandwidth("1Gbit/s", 0, emulate::BwMode::kPace, 100e9);
  FakeDevice d("fake0");
  Res self = SelfQp(d);
  Res peer = MakeQp(d, false);
  for (ibv_wr_opcode op : {IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ}) {
    Chain ch(1, 65536, op);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(Post(self.qp, ch), 0);
    for (int i = 0; i < 8; ++i) ASSERT_EQ(Post(peer.qp, ch), 0);
  }
  EXPECT_EQ(Counters(self.qp).delay_ticks, 0u);
  EXPECT_EQ(Counters(self.qp).wrs, 16u);
  // 8 x 64 KiB each way at 1 Gbit/s: milliseconds of waiting.
  EXPECT_GT(Counters(peer.qp).delay_ticks, Ticks(1e6));
}

TEST_F(LoopbackTest, ATopologyClassNamingTheLocalAddressStillApplies) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(dir != nullptr ? dir : "/tmp") + "/loopback.topology";
  std::ofstream(path) << "class local latency=40us\n"
                         "route * 10.0.1.0/24 local\n";
  const SettingsResult s =
      SettingsFromEnv([&](const char* name) -> const char* {
        const std::string n = name;
        if (n == "VERBSEMU_TOPOLOGY") return path.c_str();
        if (n == "VERBSEMU_LATENCY") return "1us";
        if (n == "VERBSEMU_REPORT") return "stderr";
        return nullptr;
      });
  ASSERT_TRUE(s.ok()) << s.error;
  Configure(s.settings);
  FakeDevice d("fake0");
  Res self = SelfQp(d);
  EXPECT_GE(ReadTicks(d, self.qp) + ShimFixedCost(), 2 * Ticks(40'000));
  EXPECT_EQ(ReportText().find("loopback QP"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::shim::internal
