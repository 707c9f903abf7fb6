// VERBSEMU_FABRIC=links on the fake device: each port's ingress beside its
// egress (shim/internal/ingress_link.h). Each fake device is a port with a
// virtual link of its own; a QP's peer is its address vector's GID.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "models/contention/models.h"
#include "models/contention/penalty_file.h"
#include "shim/internal/deferred_post.h"
#include "shim/internal/engine.h"
#include "shim/internal/fabric_flows.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/faults.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint32_t kBytes = 65536;  // 524 us at 1 Gbit/s

// Stops the engine (the defer mode's progress thread) before the devices it
// posts to go: declared after them.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// The posts are deferred (latency mode defer): each returns at once and is
// held until its links' release, as a NIC's send queue holds it, so one
// thread posting in turn on several QPs keeps them all busy, and a post's
// hold is decided by the links' schedules when it is posted. A spinning
// post would instead wait out its own message's time on the link before
// the next could go.
class FabricTest : public ShimTest {
 protected:
  // Pacing at 1 Gbit/s over a "real" link far faster, the posts deferred.
  void ConfigureFabric(emulate::Fabric fabric, const char* rate = "1Gbit/s",
                       std::shared_ptr<const PenaltySettings> penalties = {}) {
    emulate::Config c;
    c.bandwidth = *emulate::ParseBandwidth(rate);
    c.bw_mode = emulate::BwMode::kPace;
    c.link_bits_per_s = 1e12;
    c.latency_mode = emulate::LatencyMode::kDefer;
    c.fabric = fabric;
    Settings s;
    s.engine = c;
    s.report = "stderr";  // the holds are noted (lateness)
    s.penalties = std::move(penalties);
    Configure(s);
  }
  // A QP on `d` connected to the port whose GID ends in `peer`.
  // `wr_api`: made with ibv_create_qp_ex, for ibv_wr_* batches.
  static FakeQpEnv QpTo(FakeDevice& d, uint8_t peer, bool wr_api = false) {
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = wr_api, .connect = false});
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
    return e;
  }
  // The windows' turns: "a" or "b" for each post the devices saw, in order.
  static std::string TurnsOfTwoWindows(bool wr_api) {
    FakeDevice a("fake0"), b("fake1");
    StopEngineFirst stop;
    const std::vector<FakeQpEnv> qps{QpTo(a, 9, wr_api), QpTo(b, 9, wr_api)};
    Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
    constexpr int kWindow = 4;
    for (const FakeQpEnv& e : qps) {
      for (int i = 0; i < kWindow; ++i) {
        if (!wr_api) {
          EXPECT_EQ(Post(e.qp, ch), 0);
          continue;
        }
        ibv_wr_start(e.qpx);
        ibv_wr_rdma_write(e.qpx, 1, 0x2000);
        ibv_wr_set_sge(e.qpx, 1, 0x1000, kBytes);
        EXPECT_EQ(ibv_wr_complete(e.qpx), 0);
      }
    }
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    ibv_wc wc[8];
    while (a.Posts().size() + b.Posts().size() < 2 * kWindow &&
           std::chrono::steady_clock::now() < end) {
      for (const FakeQpEnv& e : qps) ibv_poll_cq(e.cq, 8, wc);
    }
    std::vector<PostRecord> order = a.Posts();
    const std::vector<PostRecord> from_b = b.Posts();
    order.insert(order.end(), from_b.begin(), from_b.end());
    EXPECT_EQ(order.size(), 2u * kWindow);
    std::sort(
        order.begin(), order.end(),
        [](const PostRecord& x, const PostRecord& y) { return x.tsc < y.tsc; });
    std::string seq;
    for (const PostRecord& r : order) seq += r.qp == qps[0].qp ? 'a' : 'b';
    return seq;
  }
  // One message's time at 1 Gbit/s.
  static double MessageNs() { return kBytes * 8 / 1.0; }
  friend FakeQpEnv FlowFrom(FakeDevice& d, uint8_t host, uint8_t peer);
  // What the posts were held for their links, together: each hold's
  // release less its post, as the schedules decided it when it was posted
  // (a slow hand-over, the host's doing, left out). A post made late, on a
  // loaded host, is only held less.
  static double ScheduledHoldNs() {
    const WaitLateness& l = E().lateness;
    return Cal().TicksToNs(l.waited_ticks() - l.sum_ticks());
  }
  // `posts` messages from each QP in turn, then every one handed to its
  // device: the rate they left at together, Gbit/s, from the first post to
  // the last device stamp (a loaded host only lowers it).
  static double PostInTurn(const std::vector<FakeQpEnv>& qps,
                           const std::vector<FakeDevice*>& devices, int posts) {
    Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
    const uint64_t start = emulate::ReadTsc();
    for (int i = 0; i < posts; ++i) {
      for (const FakeQpEnv& e : qps) EXPECT_EQ(Post(e.qp, ch), 0);
    }
    const size_t total = qps.size() * static_cast<size_t>(posts);
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    ibv_wc wc[8];
    for (;;) {
      size_t seen = 0;
      for (FakeDevice* d : devices) seen += d->Posts().size();
      if (seen >= total || std::chrono::steady_clock::now() > end) break;
      for (const FakeQpEnv& e : qps) ibv_poll_cq(e.cq, 8, wc);
    }
    uint64_t last = 0;
    size_t seen = 0;
    for (FakeDevice* d : devices) {
      last = std::max(last, d->last_post_tsc.load());
      seen += d->Posts().size();
    }
    EXPECT_EQ(seen, total);
    return static_cast<double>(uint64_t{kBytes} * total) * 8 /
           Cal().TicksToNs(last - start);
  }
  // The holds of n messages posted at once on one link: the k-th is held
  // k message times.
  static double HoldsOnOneLink(int n) {
    return MessageNs() * n * (n + 1) / 2.0;
  }
};

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

// VERBSEMU_FABRIC=penalty: device `host`'s QP to the port whose GID ends in
// `peer`, the devices standing for different nodes.
FakeQpEnv FlowFrom(FakeDevice& d, uint8_t host, uint8_t peer) {
  d.gid_host = host;
  return FabricTest::QpTo(d, peer);
}

// The mean time between one QP's consecutive messages at its device, from
// its first to its last (a hand-over made late by a loaded host moves one
// end only, not every spacing it is next to).
double MeanSpacingNs(FakeDevice& d, const FakeQpEnv& e) {
  std::vector<uint64_t> t;
  for (const PostRecord& r : d.Posts()) {
    if (r.qp == e.qp) t.push_back(r.tsc);
  }
  if (t.size() < 2) return 0;
  std::sort(t.begin(), t.end());
  return Cal().TicksToNs(t.back() - t.front()) /
         static_cast<double>(t.size() - 1);
}

// Three ports into one: the rules give each transfer rho = 3 (rule (c)),
// the port's rate between them, as the ingress link does.
TEST_F(FabricTest, PenaltyAnIncastOfThreeGetsAThirdEach) {
  ConfigureFabric(emulate::Fabric::kPenalty);
  FakeDevice a("fake0"), b("fake1"), c("fake2");
  StopEngineFirst stop;
  const std::vector<FakeQpEnv> qps{FlowFrom(a, 1, 9), FlowFrom(b, 2, 9),
                                   FlowFrom(c, 3, 9)};
  const double rate = PostInTurn(qps, {&a, &b, &c}, 10);
  EXPECT_LE(rate, 1.03) << rate << " Gbit/s into one port";
  EXPECT_NE(ReportText().find("fabric penalty: each transfer at B_port/rho "
                              "(mm2011-node) over the node's active "
                              "transfers; 3 flow(s) claimed"),
            std::string::npos)
      << ReportText();
}

// a>b, a>c, d>c: the rules give a's two transfers rho = 3 each (its two
// edges, and d's competing for c: rule (c)) and d's rho = 1.5 (rule (b): a
// single-out sender against a busier one), where max-min sharing would
// give every transfer half the rate. When d's flow ends, a's two are a
// fan-out of two: rho = 2. The penalties as the flows' bookings take them.
TEST_F(FabricTest, PenaltyOfEachFlowIsTheRulesOverTheActiveFlows) {
  ConfigureFabric(emulate::Fabric::kPenalty);
  FakeDevice a("fake0"), d("fake3");
  StopEngineFirst stop;
  const FakeQpEnv ab = FlowFrom(a, 1, 8), ac = FlowFrom(a, 1, 9),
                  dc = FlowFrom(d, 4, 9);
  std::vector<FlowSlot*> flows;
  for (const FakeQpEnv* e : {&ab, &ac, &dc}) {
    flows.push_back(E().qps.Find(e->qp)->flow.get());
    ASSERT_NE(flows.back(), nullptr);
    flows.back()->queued.store(1);  // a post waiting: active
  }
  const contention::PenaltyFile& model = *E().bw.penalties;
  const uint64_t now = emulate::ReadTsc();
  FabricFlows& table = E().bw.flows;
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[0], now, model), 3.0);
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[1], now, model), 3.0);
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[2], now, model), 1.5);
  // Out of memory while building the graph: said, and the port's whole
  // rate, not a crash.
  InjectFaultForTesting(Fault::kOutOfMemory, true);
  ::testing::internal::CaptureStderr();
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[0], now, model), 1.0);
  const std::string said = ::testing::internal::GetCapturedStderr();
  InjectFaultForTesting(Fault::kOutOfMemory, false);
  EXPECT_NE(said.find("VERBSEMU_FABRIC=penalty"), std::string::npos) << said;
  // d's last bytes still on its wire: active.
  flows[2]->queued.store(0);
  flows[2]->wire_end.store(now + 1000000);
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[0], now, model), 3.0);
  // ... and ended.
  EXPECT_DOUBLE_EQ(table.Penalty(*flows[0], now + 1000001, model), 2.0);
}

// A transfer booked alone, joined a quarter into its WR by another into the
// same port: at the booking's end it is lengthened, the bytes left after
// the arrival at the new penalty (rho 2: an incast of two), as the fluid
// model has it; then nothing more is owed.
TEST_F(FabricTest, PenaltyABookingLengthensWhenAFlowArrivesDuringIt) {
  ConfigureFabric(emulate::Fabric::kPenalty);
  FakeDevice a("fake0"), b("fake1");
  StopEngineFirst stop;
  const FakeQpEnv ad = FlowFrom(a, 1, 9), bd = FlowFrom(b, 2, 9);
  QpState* q = E().qps.Find(ad.qp);
  ASSERT_NE(q, nullptr);
  FlowSlot& mine = *q->flow.get();
  FlowSlot& other = *E().qps.Find(bd.qp)->flow.get();
  const uint64_t t0 = emulate::ReadTsc();
  const double wire = static_cast<double>(Cal().NsToTicks(MessageNs()));
  const double slack = static_cast<double>(Cal().NsToTicks(2000));
  NoteQueued(mine, t0);
  LateIngress late{.bytes = kBytes, .start = t0};
  const uint64_t due = FlowDue(q, mine, &late, t0);
  EXPECT_EQ(late.rho, 1.0);
  EXPECT_NEAR(static_cast<double>(due - t0), wire, slack);
  NoteQueued(other, t0 + static_cast<uint64_t>(wire / 4));
  const uint64_t later = FlowDue(q, mine, &late, due);
  EXPECT_NEAR(static_cast<double>(later - t0), wire / 4 + 0.75 * wire * 2,
              slack);
  EXPECT_EQ(late.bytes, 0u);
  // Without an arrival after its start, a booking is not lengthened.
  LateIngress next{.bytes = kBytes, .start = later};
  NoteQueued(mine, later);
  const uint64_t next_due = FlowDue(q, mine, &next, later);
  EXPECT_EQ(next.rho, 2.0);
  EXPECT_EQ(FlowDue(q, mine, &next, next_due), 0u);
}

// VERBSEMU_PENALTIES: the same graph under max-min sharing (2 each), and a
// file whose measured shape for it overrides its model.
TEST_F(FabricTest, PenaltyTakesItsPenaltiesFromTheModelOrFileAsked) {
  auto maxmin = std::make_shared<PenaltySettings>();
  maxmin->source = "maxmin";
  maxmin->penalties.model = contention::FindModel("maxmin");
  // A measured shape of a>b,a>c,d>c, as contentionfit export writes it: its
  // canonical form, the penalties in that form's edge order.
  const std::vector<double> measured{2.75, 3.25, 1.25};
  std::string why;
  const auto graph = contention::ParseGraph("a>b,a>c,d>c", &why);
  ASSERT_TRUE(graph) << why;
  const auto canonical = contention::Canonicalize(*graph, &why);
  ASSERT_TRUE(canonical) << why;
  auto file = std::make_shared<PenaltySettings>();
  file->source = "measured.txt";
  file->penalties.model = contention::FindModel("mm2011-node");
  std::vector<double>& rho = file->penalties.shapes[canonical->form];
  for (const int edge : canonical->edge_order) rho.push_back(measured[edge]);
  for (const auto& [settings, want] :
       {std::pair{maxmin, std::vector<double>{2, 2, 2}},
        std::pair{file, measured}}) {
    ConfigureFabric(emulate::Fabric::kPenalty, "1Gbit/s", settings);
    FakeDevice a("fake0"), d("fake3");
    StopEngineFirst stop;
    const FakeQpEnv ab = FlowFrom(a, 1, 8), ac = FlowFrom(a, 1, 9),
                    dc = FlowFrom(d, 4, 9);
    std::vector<FlowSlot*> flows;
    for (const FakeQpEnv* e : {&ab, &ac, &dc}) {
      flows.push_back(E().qps.Find(e->qp)->flow.get());
      ASSERT_NE(flows.back(), nullptr);
      flows.back()->queued.store(1);
    }
    const uint64_t now = emulate::ReadTsc();
    for (size_t i = 0; i < flows.size(); ++i) {
      EXPECT_DOUBLE_EQ(E().bw.flows.Penalty(*flows[i], now, *E().bw.penalties),
                       want[i])
          << settings->source << " edge " << i;
    }
    EXPECT_NE(ReportText().find("B_port/rho (" + settings->source + ")"),
              std::string::npos)
        << ReportText();
    ResetForTesting();
  }
}

// A process that died with flows claimed: its slots are freed by the next
// process that looks (at most every 100 ms), so they stop counting.
TEST_F(FabricTest, PenaltyFlowsOfADeadProcessAreReaped) {
  ConfigureFabric(emulate::Fabric::kPenalty);
  FabricFlows& table = E().bw.flows;
  FlowSlot* s = table.Claim("g01", "g02");
  ASSERT_NE(s, nullptr);
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  s->pid.store(child);
  s->queued.store(1);
  table.Reap(emulate::ReadTsc() + Cal().NsToTicks(200e6));
  EXPECT_EQ(s->pid.load(), 0);
}

// The same graph end to end: each flow's messages at the device are spaced
// by its penalty times one message's time (d posts twice as many, so that
// all three stay active together). At 100 Mbit/s (a message 5.2 ms, a's
// spaced 15.7 ms); bounds wide enough for a loaded host's late hand-overs,
// narrow enough to tell the rules from max-min (2, 2, 2).
TEST_F(FabricTest, PenaltyRatesFollowTheRulesNotMaxMin) {
  ConfigureFabric(emulate::Fabric::kPenalty, "100Mbit/s");
  FakeDevice a("fake0"), d("fake3");
  StopEngineFirst stop;
  const FakeQpEnv ab = FlowFrom(a, 1, 8), ac = FlowFrom(a, 1, 9),
                  dc = FlowFrom(d, 4, 9);
  Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
  constexpr int kPosts = 6;
  for (int i = 0; i < kPosts; ++i) {
    EXPECT_EQ(Post(ab.qp, ch), 0);
    EXPECT_EQ(Post(ac.qp, ch), 0);
    EXPECT_EQ(Post(dc.qp, ch), 0);
    EXPECT_EQ(Post(dc.qp, ch), 0);
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  ibv_wc wc[8];
  while (a.Posts().size() + d.Posts().size() < 4u * kPosts &&
         std::chrono::steady_clock::now() < end) {
    for (const FakeQpEnv* e : {&ab, &ac, &dc}) ibv_poll_cq(e->cq, 8, wc);
  }
  ASSERT_EQ(a.Posts().size() + d.Posts().size(), 4u * kPosts);
  const double message_ns = MessageNs() * 10;  // at 100 Mbit/s
  EXPECT_NEAR(MeanSpacingNs(a, ab) / message_ns, 3.0, 0.6);
  EXPECT_NEAR(MeanSpacingNs(a, ac) / message_ns, 3.0, 0.6);
  EXPECT_NEAR(MeanSpacingNs(d, dc) / message_ns, 1.5, 0.3);
}

// Spinning posts have nothing queued to share: said once, links instead.
TEST_F(FabricTest, PenaltyWithoutDeferSaysSoAndUsesLinks) {
  emulate::Config c;
  c.bandwidth = *emulate::ParseBandwidth("1Gbit/s");
  c.bw_mode = emulate::BwMode::kPace;
  c.link_bits_per_s = 1e12;
  c.fabric = emulate::Fabric::kPenalty;
  Settings s;
  s.engine = c;
  Configure(s);
  FakeDevice a("fake0");
  ::testing::internal::CaptureStderr();
  const FakeQpEnv e = FlowFrom(a, 1, 9);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("VERBSEMU_FABRIC=penalty needs "
                         "VERBSEMU_LATENCY_MODE=defer"),
            std::string::npos)
      << printed;
  const QpState* q = E().qps.Find(e.qp);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->flow.get(), nullptr);
  EXPECT_NE(q->ingress_peer.load(), nullptr);
}

}  // namespace
}  // namespace verbsemu::shim::internal
