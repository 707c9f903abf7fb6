// VERBSEMU_FABRIC=penalty on the fake device: every connected QP that
// sends is a flow, each WR booked at B_port / rho over the graph of the
// active flows (shim/internal/fabric_flows.h).
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "models/contention/models.h"
#include "models/contention/penalty_file.h"
#include "shim/internal/deferred_post.h"
#include "shim/internal/engine.h"
#include "shim/internal/fabric_fixture.h"
#include "shim/internal/fabric_flows.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/faults.h"
#include "shim/internal/report.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

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

// Two ports a and b, each its own node, sending into one port (GID ...9):
// a's QP and flow (`q_`, `mine_`) and b's flow (`other_`), from `t0_`;
// one WR's time at the port's rate (`wire_`) and the tolerance (`slack_`).
class PenaltyBookingTest : public FabricTest {
 protected:
  void SetUp() override {
    FabricTest::SetUp();
    ConfigureFabric(emulate::Fabric::kPenalty);
    ad_ = FlowFrom(a_, 1, 9);
    bd_ = FlowFrom(b_, 2, 9);
    q_ = E().qps.Find(ad_.qp);
    ASSERT_NE(q_, nullptr);
    mine_ = q_->flow.get();
    other_ = E().qps.Find(bd_.qp)->flow.get();
    ASSERT_NE(mine_, nullptr);
    ASSERT_NE(other_, nullptr);
    t0_ = emulate::ReadTsc();
  }
  // Looks at the booking `late` of a's flow from `now` on as a drainer
  // does, at every time FlowDue asks for, calling `at` first at each; the
  // time it says hand over.
  uint64_t HandOver(LateIngress* late, uint64_t now,
                    const std::function<void(uint64_t)>& at = {}) {
    for (int looks = 0; looks < 100; ++looks) {
      if (at) at(now);
      const uint64_t next = FlowDue(q_, *mine_, late, now);
      if (next == 0) return now;
      EXPECT_GT(next, now);
      now = next;
    }
    ADD_FAILURE() << "no hand-over after 100 looks";
    return now;
  }
  uint64_t At(double wires) const {
    return t0_ + static_cast<uint64_t>(wires * wire_);
  }

  FakeDevice a_{"fake0"}, b_{"fake1"};
  StopEngineFirst stop_;  // after the devices: it goes first
  FakeQpEnv ad_, bd_;
  QpState* q_ = nullptr;
  FlowSlot* mine_ = nullptr;
  FlowSlot* other_ = nullptr;
  uint64_t t0_ = 0;
  const double wire_ = static_cast<double>(Cal().NsToTicks(MessageNs()));
  const double slack_ = static_cast<double>(Cal().NsToTicks(2000));
};

// A transfer booked alone, joined a quarter into its WR by another into the
// same port: from the arrival on, the bytes left go at the new penalty
// (rho 2: an incast of two), as the fluid model has it; then nothing more
// is owed.
TEST_F(PenaltyBookingTest, LengthensWhenAFlowArrivesDuringIt) {
  NoteQueued(*mine_, t0_);
  LateIngress late{.bytes = kBytes, .start = t0_};
  const uint64_t arrival = At(0.25);
  const uint64_t hand = HandOver(&late, t0_, [&](uint64_t now) {
    if (now == t0_) {
      EXPECT_EQ(late.rho, 0.0);
    }
    if (now >= arrival && other_->queued.load() == 0) {
      NoteQueued(*other_, arrival);
    }
  });
  EXPECT_NEAR(static_cast<double>(hand - t0_), (0.25 + 0.75 * 2) * wire_,
              slack_);
  EXPECT_EQ(late.bytes, 0u);
  // Without a change after its start, a booking is neither lengthened nor
  // shortened.
  LateIngress next{.bytes = kBytes, .start = hand};
  NoteQueued(*mine_, hand);
  const uint64_t next_hand = HandOver(&next, hand);
  EXPECT_NEAR(static_cast<double>(next_hand - hand), 2 * wire_, slack_);
}

// Two transfers into one port (rho 2 each); the other's last byte is
// through half a WR's time into mine: from then on mine goes alone
// (rho 1), so it ends at 1/2 + (2 - 1/2) / 2 = 1.25 WR times, not 2, as
// the paper's next step has it. Without looks before its end a booking
// would keep the penalty of the graph it started in.
TEST_F(PenaltyBookingTest, ShortensWhenAFlowLeavesDuringIt) {
  NoteQueued(*mine_, t0_);
  NoteQueued(*other_, t0_);
  other_->queued.store(0);  // its last bytes on the wire until half a WR
  other_->wire_end.store(At(0.5));
  LateIngress late{.bytes = kBytes, .start = t0_};
  int looks = 0;
  const uint64_t hand = HandOver(&late, t0_, [&](uint64_t now) {
    ++looks;
    if (now == t0_) {
      EXPECT_EQ(late.rho, 0.0);
    }
  });
  EXPECT_NEAR(static_cast<double>(hand - t0_), 1.25 * wire_, slack_);
  EXPECT_LE(looks, 12);  // an eighth of the booking at a time, and the end
  EXPECT_EQ(late.bytes, 0u);
}

// A model that counts its calls (the rules' penalties).
int model_calls = 0;
std::vector<double> CountedRules(const contention::Graph& g) {
  ++model_calls;
  return contention::FindModel("mm2011-node")->penalties(g);
}

// ib-hol's penalty is a simulation: each graph is computed once per
// process, and a flow in the same place of the same shape (a>b and a>c of
// a fan-out) takes the entry of the other; a new flow makes a new graph.
TEST_F(FabricTest, PenaltyOfAGraphSeenBeforeIsNotComputedAgain) {
  static constexpr contention::Model kCounted{"counted", CountedRules, ""};
  auto counted = std::make_shared<PenaltySettings>();
  counted->source = "counted";
  counted->penalties.model = &kCounted;
  ConfigureFabric(emulate::Fabric::kPenalty, "1Gbit/s", counted);
  FakeDevice a("fake0"), d("fake3");
  StopEngineFirst stop;
  const FakeQpEnv ab = FlowFrom(a, 1, 8), ac = FlowFrom(a, 1, 9);
  FlowSlot* f_ab = E().qps.Find(ab.qp)->flow.get();
  FlowSlot* f_ac = E().qps.Find(ac.qp)->flow.get();
  ASSERT_NE(f_ab, nullptr);
  ASSERT_NE(f_ac, nullptr);
  f_ab->queued.store(1);
  f_ac->queued.store(1);
  model_calls = 0;
  const contention::PenaltyFile& file = *E().bw.penalties;
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(E().bw.flows.Penalty(*f_ab, emulate::ReadTsc(), file), 2);
    EXPECT_DOUBLE_EQ(E().bw.flows.Penalty(*f_ac, emulate::ReadTsc(), file), 2);
  }
  EXPECT_EQ(model_calls, 1);
  const FakeQpEnv dc = FlowFrom(d, 4, 9);
  FlowSlot* f_dc = E().qps.Find(dc.qp)->flow.get();
  ASSERT_NE(f_dc, nullptr);
  f_dc->queued.store(1);
  // a>b,a>c,d>c (the rules: a's edges 2 + 1 under rule (c), d>c rule (b)).
  const double rho_ab = E().bw.flows.Penalty(*f_ab, emulate::ReadTsc(), file);
  EXPECT_EQ(model_calls, 2);
  EXPECT_DOUBLE_EQ(rho_ab, 3);
  EXPECT_DOUBLE_EQ(E().bw.flows.Penalty(*f_dc, emulate::ReadTsc(), file), 1.5);
  EXPECT_EQ(model_calls, 3);
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
