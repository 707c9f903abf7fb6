#include "verbsbench/timer.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <vector>

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
  const int64_t n0 = Timer::ReferenceNs();
  int64_t n1 = n0;
  while (n1 - n0 < 2'000'000) n1 = Timer::ReferenceNs();
  const double outer = t.TicksToNs(ReadTicks() - a0);
  EXPECT_GE(outer, static_cast<double>(n1 - n0) * 0.95);
}

TEST(Timer, ElapsedSubtractsOverhead) {
  Timer t(2e9, 10.0);
  EXPECT_DOUBLE_EQ(t.TicksToNs(2000), 1000.0);
  EXPECT_DOUBLE_EQ(t.ElapsedNs({100, 0}, {2100, 0}), 990.0);
  EXPECT_THROW(Timer(0, 0), std::invalid_argument);
}

int64_t ClockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The reference read lies between two CLOCK_MONOTONIC_RAW reads. Where NTP
// has slewed CLOCK_MONOTONIC away from the raw clock (on this host by
// 0.3 s), a reference on CLOCK_MONOTONIC falls outside.
TEST(Timer, CalibratesAgainstTheRawMonotonicClock) {
  const int64_t before = ClockNs(CLOCK_MONOTONIC_RAW);
  const int64_t reference = Timer::ReferenceNs();
  const int64_t after = ClockNs(CLOCK_MONOTONIC_RAW);
  EXPECT_LE(before, reference);
  EXPECT_LE(reference, after);
  EXPECT_STREQ(Timer::ReferenceName(), "CLOCK_MONOTONIC_RAW");
}

bool PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// The CPU each stamp names is the one it ran on, and moving the thread
// between two stamps is seen.
TEST(Timer, StampsSeeAMigration) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  EXPECT_TRUE(Timer::TscAuxIsCpu());
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU allowed: nothing to move to";
  ASSERT_TRUE(PinTo(cpus[0]));
  const Stamp a = ReadStamp();
  const Stamp b = ReadStamp();
  ASSERT_TRUE(PinTo(cpus[1]));
  const Stamp c = ReadStamp();
  sched_setaffinity(0, sizeof(allowed), &allowed);
  EXPECT_EQ(a.cpu & 0xfff, static_cast<uint32_t>(cpus[0]));
  EXPECT_EQ(c.cpu & 0xfff, static_cast<uint32_t>(cpus[1]));
  EXPECT_FALSE(Migrated(a, b));
  EXPECT_TRUE(Migrated(b, c));
}

TEST(Timer, JsonHasContractFields) {
  const Timer t = Timer::Calibrate({.window_ns = 1'000'000, .rounds = 1}, 1000);
  const auto j = t.ToJson();
  EXPECT_TRUE(j.contains("tsc_hz"));
  EXPECT_TRUE(j.contains("overhead_min_ns"));
  EXPECT_EQ(j["reference"], "CLOCK_MONOTONIC_RAW");
  EXPECT_EQ(j["migration_check"], "rdtscp TSC_AUX");
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
