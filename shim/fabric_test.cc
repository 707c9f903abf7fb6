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
#include "shim/internal/fabric_fixture.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// Three ports sending into one: 1 Gbit/s between them, not 1 each.
TEST_F(FabricTest, AnIncastIntoANarrowedPortSharesItsRate) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0"), b("fake1"), c("fake2");
  StopEngineFirst stop;
  const std::vector<FakeQpEnv> qps{QpTo(a, 9), QpTo(b, 9), QpTo(c, 9)};
  const double rate = PostInTurn(qps, {&a, &b, &c}, 10);
  EXPECT_LE(rate, 1.03) << rate << " Gbit/s into one port";
  EXPECT_NE(ReportText().find("fabric links: each port's ingress beside its "
                              "egress; 2 ingress link(s)"),
            std::string::npos)
      << ReportText();
}

// One sender into a free port: its egress and the port's ingress carry each
// message at once (cut through), so its posts are held as by one link, not
// each a message longer for crossing two.
TEST_F(FabricTest, OneSenderIsHeldAsByOneLink) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0");
  StopEngineFirst stop;
  PostInTurn({QpTo(a, 9)}, {&a}, 10);
  EXPECT_LE(ScheduledHoldNs(), 1.03 * HoldsOnOneLink(10));
  EXPECT_GE(ScheduledHoldNs(), 0.8 * HoldsOnOneLink(10));
}

// How often consecutive posts came from different senders.
int Turns(const std::string& seq) {
  int turns = 0;
  for (size_t i = 1; i < seq.size(); ++i) turns += seq[i] != seq[i - 1];
  return turns;
}

// Two senders into one port, each with a window of 4 WRs posted at once
// (as a benchmark's or an MPI library's send queue has): the port's ingress
// serves them in turn, WR by WR, as a fabric's arbitration does, so both end
// together. Were each post's ingress booked when it was posted, the first
// sender's whole window would go before the second's (a a a a b b b b), and
// it would end 4 messages sooner than a fair share lets it. At 100 Mbit/s
// (5.2 ms a message), so that a loaded host's late hand-overs stay well
// within a message's time. 7 turns in "abababab"; a host that hands two due
// posts over late may swap a pair: at least 5. Booked at post: 1.
TEST_F(FabricTest, TwoSendersWindowsTakeTurnsAtTheIngress) {
  ConfigureFabric(emulate::Fabric::kLinks, "100Mbit/s");
  const std::string seq = TurnsOfTwoWindows(/*wr_api=*/false);
  EXPECT_GE(Turns(seq), 5) << seq;
  EXPECT_NE(seq.substr(seq.size() - 2), "bb") << seq;
}

// The same with ibv_wr_* batches (recorded, queued whole).
TEST_F(FabricTest, TwoSendersBatchesTakeTurnsAtTheIngress) {
  ConfigureFabric(emulate::Fabric::kLinks, "100Mbit/s");
  const std::string seq = TurnsOfTwoWindows(/*wr_api=*/true);
  EXPECT_GE(Turns(seq), 5) << seq;
  EXPECT_NE(seq.substr(seq.size() - 2), "bb") << seq;
}

// a>b, a>c and b>c, 6 messages each posted at once: max-min sharing gives
// each half a link, a's egress and c's ingress being full. WR by WR, c's
// ingress serves b>c (whose own egress is free, its queue always waiting
// at c) and a>c (one message in two of a's egress) in turns, and a>c ends
// one message after b>c. Each a>c message reaches c as b>c's previous one
// is through, a tie at the ingress: b>c's QP posts first, so the progress
// thread drains it first, and first come it would take the tie (a>c 2
// messages behind). At 20 Mbit/s (26 ms a message), so that a loaded
// host's late wake-ups stay within the turn's grace (a quarter message: at
// 100 Mbit/s one ASan run in a parallel suite lost a turn, lag 1.53).
TEST_F(FabricTest, ATieAtAnIngressIsTakenInTurns) {
  ConfigureFabric(emulate::Fabric::kLinks, "20Mbit/s");
  FakeDevice a("fake0"), b("fake1");
  a.gid_host = 1;
  b.gid_host = 2;
  StopEngineFirst stop;
  const FakeQpEnv bc = QpTo(b, 3), ac = QpTo(a, 3);
  PostInTurn({bc, QpTo(a, 2), ac}, {&a, &b}, 6);
  uint64_t end_ac = 0, end_bc = 0;
  for (const PostRecord& r : a.Posts()) {
    if (r.qp == ac.qp) end_ac = std::max(end_ac, r.tsc);
  }
  for (const PostRecord& r : b.Posts()) end_bc = std::max(end_bc, r.tsc);
  ASSERT_GT(end_ac, end_bc);
  // How much later a>c ends than b>c, in messages (of 20 Mbit/s).
  const double lag = Cal().TicksToNs(end_ac - end_bc) / (50 * MessageNs());
  EXPECT_GE(lag, 0.5);
  EXPECT_LE(lag, 1.5);
}

// The same incast with the egress alone (the default): each sender keeps
// its own port's link, so the posts are held about a third of what one
// shared link would hold them (30 messages on one link): bounded by half.
TEST_F(FabricTest, WithTheEgressAloneAnIncastIsNotNarrowed) {
  ConfigureFabric(emulate::Fabric::kEgress);
  FakeDevice a("fake0"), b("fake1"), c("fake2");
  StopEngineFirst stop;
  const std::vector<FakeQpEnv> qps{QpTo(a, 9), QpTo(b, 9), QpTo(c, 9)};
  PostInTurn(qps, {&a, &b, &c}, 10);
  EXPECT_LE(ScheduledHoldNs(), 0.5 * HoldsOnOneLink(30));
}

// Two ports sending into two others: each pair keeps its rate (held about
// half of what one shared link would hold them).
TEST_F(FabricTest, SendersIntoDifferentPortsKeepTheirRates) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0"), b("fake1");
  StopEngineFirst stop;
  const std::vector<FakeQpEnv> qps{QpTo(a, 8), QpTo(b, 9)};
  PostInTurn(qps, {&a, &b}, 10);
  EXPECT_LE(ScheduledHoldNs(), 0.75 * HoldsOnOneLink(20));
}

// One port sending to three: its egress holds (the ingresses have room).
TEST_F(FabricTest, AFanOutIsHeldByTheSendersEgress) {
  ConfigureFabric(emulate::Fabric::kLinks);
  FakeDevice a("fake0");
  StopEngineFirst stop;
  const std::vector<FakeQpEnv> qps{QpTo(a, 7), QpTo(a, 8), QpTo(a, 9)};
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
