// The shim on a faulty device (fake_faults.h): 8 threads, each with 4 QPs
// (half posting with ibv_post_send, half with ibv_wr_*), posting and
// polling while scratch QPs are created and destroyed and another thread
// modifies their QPs (RTS to RTS, or to ERR) under them; the device
// refuses posts, completes WRs in error, moves QPs to ERR and polls
// slowly at random. Under every knob, in spin and in defer mode, every WR
// must end exactly once (a completion, success or error, or a refused
// post) and the completions of each QP come in the order of its posts
// (sequence numbers in wr_id). A QP that saw an error is recovered once
// all its WRs have ended (RESET to RTS).
//
// VERBSEMU_CHAOS_WRS: WRs per knob and mode (default 6400, seconds even
// under TSan; //shim:chaos_big runs 10^6). VERBSEMU_CHAOS_SEED: the
// faults' seed (default 1). Each case prints one line of figures.
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
}

// Declared after the test's FakeDevice, so it goes first: the progress
// thread stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

class ChaosTest : public ShimTest,
                  public ::testing::WithParamInterface<Knob> {};

TEST_P(ChaosTest, EveryWrEndsExactlyOnceAndInOrder) {
  Configure(GetParam().config);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  const uint64_t seed = EnvOr("VERBSEMU_CHAOS_SEED", 1);
  MakeFaulty(d, seed);
  ChaosPlan plan;
  plan.wrs_per_qp =
      std::max<uint64_t>(1, EnvOr("VERBSEMU_CHAOS_WRS", 6400) /
                                (kChaosThreads * kChaosQpsPerThread));
  const auto t0 = std::chrono::steady_clock::now();
  ChaosTotals totals = RunChaos(d, plan);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::string faults;
  for (const FaultRow& row : kFaultTable) {
    faults += std::string(" ") + row.name + "=" +
              std::to_string(d.faults.Injected(row.fault));
  }
  std::printf(
      "chaos %s seed %llu: wrs %llu, completed ok %llu, completed in error "
      "%llu, refused at post %llu, recoveries %llu, modifies %llu, scratch "
      "qps %llu; lost %llu, duplicated %llu, reordered %llu, stuck %llu; "
      "injected:%s; %.2f s\n",
      GetParam().name.c_str(), static_cast<unsigned long long>(seed),
      static_cast<unsigned long long>(totals.posted),
      static_cast<unsigned long long>(totals.ok),
      static_cast<unsigned long long>(totals.errors),
      static_cast<unsigned long long>(totals.refused),
      static_cast<unsigned long long>(totals.recoveries),
      static_cast<unsigned long long>(totals.modifies),
      static_cast<unsigned long long>(totals.scratch),
      static_cast<unsigned long long>(totals.lost),
      static_cast<unsigned long long>(totals.duplicated),
      static_cast<unsigned long long>(totals.reordered),
      static_cast<unsigned long long>(totals.stuck), faults.c_str(), wall);
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
