// VERBSEMU_FABRIC=links on the fake device: each port's ingress beside its
// egress (shim/internal/ingress_link.h). Each fake device is a port with a
// virtual link of its own; a QP's peer is its address vector's GID.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint32_t kBytes = 65536;  // 524 us at 1 Gbit/s

class FabricTest : public ShimTest {
 protected:
  // Pacing at 1 Gbit/s over a "real" link far faster.
  void ConfigureFabric(emulate::Fabric fabric) {
    emulate::Config c;
    c.bandwidth = *emulate::ParseBandwidth("1Gbit/s");
    c.bw_mode = emulate::BwMode::kPace;
    c.link_bits_per_s = 1e12;
    c.fabric = fabric;
    Settings s;
    s.engine = c;
    s.report = "stderr";  // the waits' lateness is noted
    Configure(s);
  }
  // A QP on `d` connected to the port whose GID ends in `peer`.
  static ibv_qp* QpTo(FakeDevice& d, uint8_t peer) {
    FakeQpEnv e = MakeFakeQp(d, {.connect = false});
    EXPECT_NE(e.qp, nullptr);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.ah_attr.port_num = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.sgid_index = 1;
    a.ah_attr.grh.dgid.raw[15] = peer;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU),
              0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTS;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE), 0);
    return e.qp;
  }
  // One message's time at 1 Gbit/s.
  static double MessageNs() { return kBytes * 8 / 1.0; }
  // What the posts were scheduled to wait for their links, together: each
  // wait's deadline less its start (what a spin waited beyond its deadline,
  // the host's doing, left out), which a loaded host only shortens.
  static double ScheduledWaitNs() {
    const WaitLateness& l = E().lateness;
    return Cal().TicksToNs(l.waited_ticks() - l.sum_ticks());
  }
  // `posts` messages from each QP in turn (one thread, each post waiting
  // for its release): the rate they left at together, Gbit/s, from the
  // first device stamp to the last.
  static double PostInTurn(const std::vector<ibv_qp*>& qps,
                           const std::vector<FakeDevice*>& devices, int posts) {
    Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
    const uint64_t start = emulate::ReadTsc();
    for (int i = 0; i < posts; ++i) {
      for (ibv_qp* qp : qps) EXPECT_EQ(Post(qp, ch), 0);
    }
    uint64_t last = 0;
    for (const FakeDevice* d : devices) {
      last = std::max(last, d->last_post_tsc.load());
    }
    // The first message of each rides the catch-up window: counted out.
    const uint64_t bytes = uint64_t{kBytes} * (qps.size() * posts - qps.size());
    return static_cast<double>(bytes) * 8 / Cal().TicksToNs(last - start);
  }
};

// Three ports sending into one: 1 Gbit/s between them, not 1 each. (Wall
// time only bounds a rate from above: a loaded host slows the posts.)
TEST_F(FabricTest, AnIncastIntoANarrowedPortSharesItsRate) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0"), b("fake1"), c("fake2");
  const std::vector<ibv_qp*> qps{QpTo(a, 9), QpTo(b, 9), QpTo(c, 9)};
  const double rate = PostInTurn(qps, {&a, &b, &c}, 10);
  EXPECT_LE(rate, 1.03) << rate << " Gbit/s into one port";
  EXPECT_NE(ReportText().find("fabric links: each port's ingress beside its "
                              "egress; 2 ingress link(s)"),
            std::string::npos)
      << ReportText();
}

// The same incast with the egress alone (the default): each sender keeps
// its own port's rate, so the posts wait about a third of what one shared
// link would make them (27 messages' time): bounded by half of it.
TEST_F(FabricTest, WithTheEgressAloneAnIncastIsNotNarrowed) {
  ConfigureFabric(emulate::Fabric::kEgress);
  FakeDevice a("fake0"), b("fake1"), c("fake2");
  const std::vector<ibv_qp*> qps{QpTo(a, 9), QpTo(b, 9), QpTo(c, 9)};
  PostInTurn(qps, {&a, &b, &c}, 10);
  EXPECT_LE(ScheduledWaitNs(), 0.5 * 27 * MessageNs());
}

// Two ports sending into two others: each pair keeps its rate (the posts
// wait about half of what one shared link would make them).
TEST_F(FabricTest, SendersIntoDifferentPortsKeepTheirRates) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0"), b("fake1");
  const std::vector<ibv_qp*> qps{QpTo(a, 8), QpTo(b, 9)};
  PostInTurn(qps, {&a, &b}, 10);
  EXPECT_LE(ScheduledWaitNs(), 0.75 * 18 * MessageNs());
}

// One port sending to three: its egress holds (the ingresses have room).
TEST_F(FabricTest, AFanOutIsHeldByTheSendersEgress) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0");
  const std::vector<ibv_qp*> qps{QpTo(a, 7), QpTo(a, 8), QpTo(a, 9)};
  const double rate = PostInTurn(qps, {&a}, 10);
  EXPECT_LE(rate, 1.03) << rate << " Gbit/s from one port";
}

// A QP without a connected peer address cannot be keyed to an ingress:
// said once, and its own port's egress still holds.
TEST_F(FabricTest, AQpWithoutAPeerAddressIsNamed) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(ConnectFakeQp(r.qp, true, /*with_av=*/false));
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("VERBSEMU_FABRIC=links: RC QP"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("its traffic is limited on its own port only"),
            std::string::npos)
      << printed;
}

}  // namespace
}  // namespace verbsemu::shim::internal
