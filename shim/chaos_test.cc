// The shim on a faulty device (fake_faults.h): 8 threads, each with 4 QPs
// (half posting with ibv_post_send, half with ibv_wr_*; half polled with
// ibv_poll_cq, half through an extended CQ), posting and polling while
// scratch QPs are created and destroyed and another thread modifies their
// QPs (RTS to RTS, or to ERR) under them; the device refuses posts,
// completes WRs in error, moves QPs to ERR, polls slowly, and starts
// threads and forks inside its calls at random. Under every knob, in spin and
// in defer mode, every WR must end exactly once (a completion, success or
// error, or a refused post) and the completions of each QP come in the order of
// its posts (sequence numbers in wr_id). A QP that saw an error is recovered
// once all its WRs have ended (RESET to RTS).
//
// VERBSEMU_CHAOS_WRS: WRs per knob and mode (default 10^6, the acceptance
// scale; under ASan 2.5 * 10^5 and under TSan 10^5, as their cost would not
// fit the test stages' budget). VERBSEMU_CHAOS_SEED: the faults' seed (default
// 1). Each case prints one line of figures, and the last a table of them all.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "shim/chaos_worker.h"
#include "shim/internal/shim_fixture.h"
#include "shim/stress_knobs.h"

namespace verbsemu::shim::internal {
namespace {

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// Every knob of stress_test, in spin and in defer mode (defer needs a
// latency to hold posts for: 1 us where the knob has none).
std::vector<Knob> Cases() {
  std::vector<Knob> all;
  for (const Knob& k : Knobs()) {
    all.push_back({k.name + "_spin", k.config});
    Knob d{k.name + "_defer", k.config};
    if (d.config.latency_ns == 0) d.config.latency_ns = 1000;
    d.config.latency_mode = emulate::LatencyMode::kDefer;
    all.push_back(d);
  }
  return all;
}

// The fault probabilities of the chaos run (one row per fault).
void MakeFaulty(FakeDevice& d, uint64_t seed) {
  d.faults.Seed(seed);
  d.faults.Set(FakeFault::kPostEnomem, 2e-3);
  d.faults.Set(FakeFault::kPostEagain, 2e-3);
  d.faults.Set(FakeFault::kPostEinval, 1e-3);
  d.faults.Set(FakeFault::kWcError, 5e-4);
  d.faults.Set(FakeFault::kAsyncErr, 5e-4);
  d.faults.Set(FakeFault::kSlowPoll, 1e-2);
  d.faults.Set(FakeFault::kThreadInCall, 1e-4);
  d.faults.Set(FakeFault::kForkInCall, 5e-5);
}

// WRs per knob and mode unless VERBSEMU_CHAOS_WRS says: what fits the
// test stages' budget (docs/robustness.md has each stage's time).
#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kDefaultWrs = 100'000;
#elif defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kDefaultWrs = 250'000;
#else
constexpr uint64_t kDefaultWrs = 1'000'000;
#endif

// Declared after the test's FakeDevice, so it goes first: the progress
// thread stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

std::string N(uint64_t v) { return std::to_string(v); }

// The faults injected, "name=count ...".
std::string Injected(const FakeDevice& d) {
  std::string faults;
  for (const FaultRow& row : kFaultTable) {
    faults += (faults.empty() ? "" : " ") + std::string(row.name) + "=" +
              N(d.faults.Injected(row.fault));
  }
  return faults;
}

// The summary table's header and one row per case.
constexpr const char* kTableHeader =
    "| knob, mode | WRs | ok | error completions | refused at post | "
    "modifies | scratch QPs | faults injected | lost / duplicated / "
    "reordered / stuck | wall s |\n"
    "|---|---|---|---|---|---|---|---|---|---|\n";
std::string TableRow(const std::string& name, const ChaosTotals& t,
                     uint64_t injected, double wall) {
  char w[32];
  std::snprintf(w, sizeof w, "%.2f", wall);
  return "| " + name + " | " + N(t.posted) + " | " + N(t.ok) + " | " +
         N(t.errors) + " | " + N(t.refused) + " | " + N(t.modifies) + " | " +
         N(t.scratch) + " | " + N(injected) + " | " + N(t.lost) + " / " +
         N(t.duplicated) + " / " + N(t.reordered) + " / " + N(t.stuck) + " | " +
         w + " |\n";
}

class ChaosTest : public ShimTest, public ::testing::WithParamInterface<Knob> {
 public:
  // The table of every case run, printed after the last.
  static void TearDownTestSuite() {
    std::printf(
        "chaos summary (seed %llu):\n%s%s",
        static_cast<unsigned long long>(EnvOr("VERBSEMU_CHAOS_SEED", 1)),
        kTableHeader, Rows().c_str());
  }
  static std::string& Rows() {
    static std::string rows;
    return rows;
  }
};

TEST_P(ChaosTest, EveryWrEndsExactlyOnceAndInOrder) {
  Configure(GetParam().config);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  const uint64_t seed = EnvOr("VERBSEMU_CHAOS_SEED", 1);
  MakeFaulty(d, seed);
  ChaosPlan plan;
  plan.wrs_per_qp =
      std::max<uint64_t>(1, EnvOr("VERBSEMU_CHAOS_WRS", kDefaultWrs) /
                                (kChaosThreads * kChaosQpsPerThread));
  const auto t0 = std::chrono::steady_clock::now();
  ChaosTotals totals = RunChaos(d, plan);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  uint64_t injected = 0;
  for (const FaultRow& row : kFaultTable)
    injected += d.faults.Injected(row.fault);
  std::printf("chaos %s seed %llu: recoveries %llu; injected: %s\n",
              GetParam().name.c_str(), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(totals.recoveries),
              Injected(d).c_str());
  const std::string row = TableRow(GetParam().name, totals, injected, wall);
  std::printf("%s%s", kTableHeader, row.c_str());
  Rows() += row;
  EXPECT_EQ(totals.posted,
            plan.wrs_per_qp * kChaosThreads * kChaosQpsPerThread);
  EXPECT_EQ(totals.lost, 0u);
  EXPECT_EQ(totals.duplicated, 0u);
  EXPECT_EQ(totals.reordered, 0u);
  EXPECT_EQ(totals.stuck, 0u);
  EXPECT_EQ(totals.ok + totals.errors + totals.refused, totals.posted);
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryKnobAndMode, ChaosTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Knob>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace verbsemu::shim::internal
