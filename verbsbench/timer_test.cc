#include "verbsbench/timer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace verbsbench {
namespace {

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
  const int64_t n0 = verbsemu::emulate::MonotonicRawNs();
  int64_t n1 = n0;
  while (n1 - n0 < 2'000'000) n1 = verbsemu::emulate::MonotonicRawNs();
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
  EXPECT_EQ(j["reference"], "CLOCK_MONOTONIC_RAW");
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
