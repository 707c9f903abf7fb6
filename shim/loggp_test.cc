// LogGP's o and g on the fake device: the overhead spun inside the posting
// call (VERBSEMU_OVERHEAD) and per receive completion polled
// (VERBSEMU_RECV_OVERHEAD), the gap between message starts per QP or per
// port (VERBSEMU_GAP, VERBSEMU_GAP_SCOPE), and how they compose.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "settings/knobs.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {
namespace {

class LogGpTest : public ShimTest {
 protected:
  // `report` false: no report, so nothing but the knob asks for wrapping.
  void ConfigureLogGp(const emulate::Config& c, bool report = true) {
    Settings s;
    s.engine = c;
    if (report) s.report = "stderr";
    Configure(s);
  }
  static emulate::Config Overhead(double ns) {
    emulate::Config c;
    c.overhead_ns = ns;
    return c;
  }
  static emulate::Config Gap(double ns, emulate::GapScope scope) {
    emulate::Config c;
    c.gap_ns = ns;
    c.gap_scope = scope;
    return c;
  }
  static uint64_t Ticks(double ns) { return Cal().NsToTicks(ns); }
  // Two QPs on the device's port 1.
  std::pair<Res, Res> TwoQps(FakeDevice& d) {
    Res a = MakeQp(d, false);
    return {a, MakeQp(d, false)};
  }
  // The spin's deadline for `n` overheads: the target less its fixed cost.
  static uint64_t SpinTicks(double ns, uint64_t n = 1) {
    return n * Ticks(ns) - ShimFixedCost();
  }
  // The device's stamps of `qp`'s posts, in order.
  static std::vector<uint64_t> Stamps(FakeDevice& d, const ibv_qp* qp) {
    std::vector<uint64_t> out;
    for (const PostRecord& p : d.Posts()) {
      if (p.qp == qp) out.push_back(p.tsc);
    }
    return out;
  }
};

constexpr double kOverheadNs = 50'000;

// Stops the engine (the defer mode's progress thread) before the device it
// posts to goes: declared after the device.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// Without the report: the overhead alone still takes the per-QP post.
TEST_F(LogGpTest, OverheadIsSpentInsideThePostBeforeTheDeviceSeesIt) {
  ConfigureLogGp(Overhead(kOverheadNs), /*report=*/false);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  const uint64_t end = emulate::ReadTsc();
  const uint64_t seen = d.last_post_tsc.load();
  EXPECT_GE(seen - start, SpinTicks(kOverheadNs));
  EXPECT_GE(end, seen);
}

TEST_F(LogGpTest, OverheadIsPaidPerWrOfAChain) {
  ConfigureLogGp(Overhead(kOverheadNs));
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(3, 64);
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GE(d.last_post_tsc.load() - start, SpinTicks(kOverheadNs, 3));
}

// A batch's overhead counts from its ibv_wr_start (the shim's recording
// between the calls is absorbed, as a post's lookup is), less the replay
// after the spin, calibrated.
TEST_F(LogGpTest, OverheadIsSpentInsideTheBatchFromWrStart) {
  ConfigureLogGp(Overhead(kOverheadNs));
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  const uint64_t start = emulate::ReadTsc();
  ibv_wr_start(r.qpx);
  ibv_wr_rdma_write(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  const uint64_t end = emulate::ReadTsc();
  const uint64_t seen = d.last_post_tsc.load();
  EXPECT_GE(seen - start, SpinTicks(kOverheadNs) - E().recording.replay);
  EXPECT_GE(end, seen);
}

// The application's own time between its calls is not the shim's: a batch
// built slowly still spends the overhead inside ibv_wr_complete, short by
// at most the bound on the recording absorbed (twice its calibrated cost
// per WR) and the replay.
TEST_F(LogGpTest, TheApplicationsTimeInsideABatchIsNotOverhead) {
  ConfigureLogGp(Overhead(kOverheadNs));
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  ibv_wr_start(r.qpx);
  const uint64_t building_until = emulate::ReadTsc() + Ticks(4 * kOverheadNs);
  while (emulate::ReadTsc() < building_until) {
  }
  ibv_wr_rdma_write(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  const RecordingCost& rec = E().recording;
  EXPECT_GE(d.last_post_tsc.load() - start,
            SpinTicks(kOverheadNs) - 2 * rec.whole - rec.replay);
}

// Defer: the call still spends the overhead (CPU time is the application's);
// the latency is then waited off the CPU, from the overhead's end.
TEST_F(LogGpTest, OverheadStaysInTheCallWhenTheLatencyIsDeferred) {
  emulate::Config c = Overhead(kOverheadNs);
  c.latency_ns = 1e6;
  c.latency_mode = emulate::LatencyMode::kDefer;
  ConfigureLogGp(c);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GE(emulate::ReadTsc() - start, SpinTicks(kOverheadNs));
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(10)));
  EXPECT_GE(d.last_post_tsc.load() - start,
            SpinTicks(kOverheadNs) + SpinTicks(1e6));
}

TEST_F(LogGpTest, RecvOverheadIsSpentPerReceiveCompletionPolled) {
  emulate::Config c;
  c.recv_overhead_ns = kOverheadNs;
  ConfigureLogGp(c, /*report=*/false);
  FakeDevice d("fake0");
  d.complete_recvs = true;
  Res r = MakeQp(d, false);
  std::vector<ibv_recv_wr> wrs(3);
  for (size_t i = 0; i + 1 < wrs.size(); ++i) wrs[i].next = &wrs[i + 1];
  ibv_recv_wr* bad = nullptr;
  ASSERT_EQ(ibv_post_recv(r.qp, wrs.data(), &bad), 0);
  ibv_wc wc[8];
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(ibv_poll_cq(r.cq, 8, wc), 3);
  EXPECT_GE(emulate::ReadTsc() - start, SpinTicks(kOverheadNs, 3));
}

// Send completions, and polls that find nothing, cost no receive overhead.
TEST_F(LogGpTest, RecvOverheadIsNotSpentOnSendCompletions) {
  emulate::Config c;
  c.recv_overhead_ns = 500e6;  // far beyond what the polls below take
  ConfigureLogGp(c, /*report=*/false);
  FakeDevice d("fake0");
  d.complete_recvs = true;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ch.wrs[0].send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(r.qp, ch), 0);
  ibv_wc wc[8];
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(ibv_poll_cq(r.cq, 8, wc), 1);
  EXPECT_EQ(wc[0].opcode, IBV_WC_SEND);
  EXPECT_EQ(ibv_poll_cq(r.cq, 8, wc), 0);
  EXPECT_LT(emulate::ReadTsc() - start, Ticks(500e6));
}

// 20 µs: post i is due no sooner than i - 2 gaps after the first (a port's
// schedule may continue an earlier user's within its catch-up window of
// two gaps; an idle one lends nothing: GapClockTest).
constexpr double kGapNs = 20'000;
constexpr uint64_t kLent = 2;

TEST_F(LogGpTest, GapSpacesTheStartsOfAQpsPosts) {
  ConfigureLogGp(Gap(kGapNs, emulate::GapScope::kQp), /*report=*/false);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  const uint64_t start = emulate::ReadTsc();
  for (int i = 0; i < 30; ++i) ASSERT_EQ(Post(r.qp, ch), 0);
  const std::vector<uint64_t> seen = Stamps(d, r.qp);
  ASSERT_EQ(seen.size(), 30u);
  for (size_t i = kLent; i < seen.size(); ++i) {
    EXPECT_GE(seen[i] - start, (i - kLent) * Ticks(kGapNs)) << "post " << i;
  }
}

TEST_F(LogGpTest, GapCountsEveryWrOfAChain) {
  ConfigureLogGp(Gap(kGapNs, emulate::GapScope::kQp));
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain four(4, 64), one(1, 64);
  const uint64_t start = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, four), 0);
  ASSERT_EQ(Post(r.qp, one), 0);
  EXPECT_GE(d.last_post_tsc.load() - start, (4 - kLent) * Ticks(kGapNs));
}

TEST_F(LogGpTest, GapPerQpLeavesOtherQpsAlone) {
  constexpr double kLongGapNs = 300e6;
  ConfigureLogGp(Gap(kLongGapNs, emulate::GapScope::kQp));
  FakeDevice d("fake0");
  const auto [a, b] = TwoQps(d);
  Chain ch(1, 64);
  const uint64_t start = emulate::ReadTsc();
  // A's first post and B's first go at once: each QP has its own schedule.
  ASSERT_EQ(Post(a.qp, ch), 0);
  ASSERT_EQ(Post(b.qp, ch), 0);
  EXPECT_LT(emulate::ReadTsc() - start, Ticks(kLongGapNs));
  ASSERT_EQ(Post(a.qp, ch), 0);
  EXPECT_GE(d.last_post_tsc.load() - start, Ticks(kLongGapNs));
}

TEST_F(LogGpTest, GapPerPortSpacesEveryQpOnThePort) {
  ConfigureLogGp(Gap(kGapNs, emulate::GapScope::kPort));
  FakeDevice d("fake0");
  const auto [a, b] = TwoQps(d);
  Chain ch(1, 64);
  const uint64_t start = emulate::ReadTsc();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Post(i % 2 ? b.qp : a.qp, ch), 0);
  std::vector<uint64_t> seen;
  for (const PostRecord& p : d.Posts()) seen.push_back(p.tsc);
  ASSERT_EQ(seen.size(), 20u);
  for (size_t i = kLent; i < seen.size(); ++i) {
    EXPECT_GE(seen[i] - start, (i - kLent) * Ticks(kGapNs)) << "post " << i;
  }
}

// Pacing and the gap: a message starts at the later of the two. Small
// messages are held by the gap, large ones by the bandwidth.
TEST_F(LogGpTest, GapAndPacedBandwidthTakeTheLaterStart) {
  emulate::Config c = Gap(kGapNs, emulate::GapScope::kQp);
  c.bandwidth = *emulate::ParseBandwidth("10Gbit/s");
  c.bw_mode = emulate::BwMode::kPace;
  c.link_bits_per_s = 1e12;
  ConfigureLogGp(c);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain small(1, 64);
  uint64_t start = emulate::ReadTsc();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Post(r.qp, small), 0);
  EXPECT_GE(d.last_post_tsc.load() - start, (19 - kLent) * Ticks(kGapNs));
  // 64 KiB at 10 Gbit/s: 52 µs each, more than the gap (a bound with two
  // messages to spare).
  Chain large(1, 65536);
  start = emulate::ReadTsc();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Post(r.qp, large), 0);
  const double min_ns = 18.0 * 65536 * 8 / 10.0 * (1 - 10e9 / 1e12);
  EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - start), min_ns * 0.99);
}

// A refused value: the one line, and the process runs unemulated.
TEST_F(LogGpTest, ARefusedValueLeavesTheProcessUnemulated) {
  const SettingsResult r = SettingsFromEnv([](const char* name) {
    return std::string_view(name) == "VERBSEMU_GAP" ? "1 fortnight" : nullptr;
  });
  ASSERT_FALSE(r.ok());
  ::testing::internal::CaptureStderr();
  internal::Configure(r.settings, r.error);
  FakeDevice d("fake0");
  Res q = MakeQp(d, false);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(IsContextPatched(q.ctx));
  EXPECT_NE(err.find("verbsemu: VERBSEMU_GAP='1 fortnight' is not accepted"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(LogGpTest, ReportSaysWhatLogGpParametersAreEmulated) {
  emulate::Config c = Gap(250, emulate::GapScope::kPort);
  c.overhead_ns = 1000;
  c.recv_overhead_ns = 500;
  ConfigureLogGp(c);
  const std::string text = ReportText();
  EXPECT_NE(text.find("LogGP: overhead +1us per WR posted, recv overhead "
                      "+500ns per receive completion, gap 250ns per port"),
            std::string::npos)
      << text;
  ConfigureLogGp(emulate::Config{});
  EXPECT_EQ(ReportText().find("LogGP"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::shim::internal
