#include "verbsbench/timer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace verbsbench {
namespace {

// A simulated machine: every read of the reference clock advances time by
// `step_ns`; the tick counter runs at `hz` from `tick_offset`.
struct FakeMachine {
  double hz;
  int64_t step_ns;
  uint64_t tick_offset;
  int64_t now_ns = 1'000'000;
  int64_t Nanos() { return now_ns += step_ns; }
  uint64_t Ticks() {
    now_ns += 7;  // a tick read costs 7 ns
    return tick_offset +
           static_cast<uint64_t>(static_cast<double>(now_ns) * hz / 1e9);
  }
};

TEST(CalibrateHz, RecoversSimulatedFrequency) {
  for (double hz : {1.0e9, 2.7e9, 3.3e9}) {
    FakeMachine m{hz, 25, 123456789};
    const double got =
        CalibrateHz([&] { return m.Ticks(); }, [&] { return m.Nanos(); },
                    {.window_ns = 10'000'000, .rounds = 3});
    EXPECT_NEAR(got, hz, hz * 1e-5) << hz;
  }
}

TEST(CalibrateHz, RejectsStoppedClock) {
  EXPECT_THROW(CalibrateHz([] { return uint64_t{5}; },
                           [] {
                             static int64_t t = 0;
                             return t += 1000;
                           },
                           {.window_ns = 10000, .rounds = 1}),
               std::runtime_error);
}

TEST(CalibrateHz, RejectsBadOptions) {
  EXPECT_THROW(CalibrateHz(ReadTicks, MonotonicNanos, {.window_ns = 0}),
               std::invalid_argument);
}

TEST(Timer, RealCalibrationIsConsistentWithMonotonicClock) {
  const Timer t =
      Timer::Calibrate({.window_ns = 5'000'000, .rounds = 3}, 10000);
  // Sanity bounds, not timing assertions: any real counter runs between
  // 100 MHz and 100 GHz.
  EXPECT_GT(t.hz(), 1e8);
  EXPECT_LT(t.hz(), 1e11);
  EXPECT_GE(t.overhead_min_ns(), 0.0);
  EXPECT_EQ(t.overhead().count(), 10000u);
  EXPECT_EQ(t.overhead().min(), t.overhead_min_ns());
  // The counter interval around a reference interval can only be longer
  // (preemption lengthens it), so with a correct calibration it is never
  // shorter than the reference interval minus the calibration error.
  const uint64_t a0 = ReadTicks();
  const int64_t n0 = MonotonicNanos();
  int64_t n1 = n0;
  while (n1 - n0 < 2'000'000) n1 = MonotonicNanos();
  const double outer = t.TicksToNs(ReadTicks() - a0);
  EXPECT_GE(outer, static_cast<double>(n1 - n0) * 0.95);
}

TEST(Timer, ElapsedSubtractsOverhead) {
  Timer t(2e9, 10.0);
  EXPECT_DOUBLE_EQ(t.TicksToNs(2000), 1000.0);
  EXPECT_DOUBLE_EQ(t.ElapsedNs(100, 2100), 990.0);
  EXPECT_THROW(Timer(0, 0), std::invalid_argument);
}

TEST(Timer, JsonHasContractFields) {
  const Timer t = Timer::Calibrate({.window_ns = 1'000'000, .rounds = 1}, 1000);
  const auto j = t.ToJson();
  EXPECT_TRUE(j.contains("tsc_hz"));
  EXPECT_TRUE(j.contains("overhead_min_ns"));
  EXPECT_EQ(j["overhead"]["count"], 1000);
  EXPECT_FALSE(j["overhead"]["histogram"].empty());
  EXPECT_FALSE(j.contains("overhead_after_run"));
}

TEST(Timer, RemeasuredOverheadIsReportedSeparately) {
  Timer t = Timer::Calibrate({.window_ns = 1'000'000, .rounds = 1}, 500);
  t.RemeasureOverhead(300);
  const auto j = t.ToJson();
  EXPECT_EQ(j["overhead"]["count"], 500);
  EXPECT_EQ(j["overhead_after_run"]["count"], 300);
}

}  // namespace
}  // namespace verbsbench
