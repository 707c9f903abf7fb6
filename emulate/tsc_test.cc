#include "emulate/tsc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace verbsemu::emulate {
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

TEST(CalibrateTicksPerNs, RecoversSimulatedFrequency) {
  for (double hz : {1.0e9, 2.7e9, 3.3e9}) {
    FakeMachine m{hz, 25, 123456789};
    const double got = CalibrateTicksPerNs(
        [&] { return m.Ticks(); }, [&] { return m.Nanos(); },
        {.window_ns = 10'000'000, .rounds = 3});
    EXPECT_NEAR(got * 1e9, hz, hz * 1e-5) << hz;
  }
}

TEST(CalibrateTicksPerNs, RejectsStoppedClock) {
  int64_t t = 0;
  EXPECT_THROW(
      CalibrateTicksPerNs([] { return uint64_t{5}; }, [&] { return t += 1000; },
                          {.window_ns = 10000, .rounds = 1}),
      std::runtime_error);
}

TEST(CalibrateTicksPerNs, RejectsBadOptions) {
  EXPECT_THROW(CalibrateTicksPerNs(ReadTsc, MonotonicRawNs, {.window_ns = 0}),
               std::invalid_argument);
  EXPECT_THROW(CalibrateTicksPerNs(ReadTsc, MonotonicRawNs,
                                   {.window_ns = 1000, .rounds = 0}),
               std::invalid_argument);
}

TEST(ReadTsc, PlainAndOrderedReadsShareOneCounter) {
  const uint64_t a = ReadTsc();
  const uint64_t b = ReadTscOrdered();
  const uint64_t c = ReadTsc();
  EXPECT_LE(a, b);
  EXPECT_LE(b, c);
}

// A counter that advances 26 ticks per read, and by 1 on every 16th read
// (as an EPYC guest's TSC does now and then): its read period is 26, where
// the smallest advance would say 1.
TEST(ClockReadPeriodTicks, IsTheTypicalAdvanceNotTheSmallest) {
  uint64_t t = 1000;
  int n = 0;
  EXPECT_EQ(ClockReadPeriodTicks([&] { return t += (++n % 16 == 0) ? 1 : 26; }),
            26u);
}

TEST(ClockReadPeriodTicks, LeavesOutReadsThatDidNotAdvance) {
  uint64_t t = 0;
  int n = 0;
  // Three reads in four see the same value; the fourth a step of 40 later.
  EXPECT_EQ(ClockReadPeriodTicks([&] { return t += (++n % 4 == 0) ? 40 : 0; }),
            40u);
  EXPECT_EQ(ClockReadPeriodTicks([] { return uint64_t{7}; }), 1u);
}

TEST(TscReadPeriodTicks, IsAtLeastOneTick) {
  EXPECT_GE(TscReadPeriodTicks(), 1u);
}

// Delays spread evenly over [103, 123) ns (median 113), each measured as
// the difference of two reads of a clock with a 10 ns period at a random
// phase: a delay x reads 10 * floor(x / 10), or 10 more with a chance of
// x's fraction of a period. The samples' plain median snaps to 110; the
// interpolated one finds 113.
TEST(SteppedMedian, InterpolatesWithinThePeriod) {
  std::vector<double> v;
  const int n = 1000;
  const double golden = 0.6180339887;
  for (int i = 0; i < n; ++i) {
    const double x = 103 + 20.0 * i / n;
    const double phase = std::fmod(i * golden, 1.0);
    const double below = 10 * std::floor(x / 10);
    v.push_back(below + (phase < (x - below) / 10 ? 10 : 0));
  }
  EXPECT_NEAR(SteppedMedian(v, 10), 113, 0.5);
}

TEST(SteppedMedian, IsThePlainMedianForSpreadSamplesAndZeroForNone) {
  EXPECT_NEAR(SteppedMedian({1, 2, 3, 4, 5, 6, 7, 8, 9}, 1), 5, 0.5);
  EXPECT_EQ(SteppedMedian({}, 10), 0);
}

TEST(MonotonicRawNs, Advances) {
  const int64_t a = MonotonicRawNs();
  int64_t b = a;
  while (b == a) b = MonotonicRawNs();
  EXPECT_GT(b, a);
}

TEST(CalibrateTsc, AgreesWithReferenceClock) {
  // Not a timing assertion: the counter interval around a reference
  // interval can only be longer (preemption lengthens it), so with a correct
  // calibration it is never shorter than the reference interval minus the
  // calibration error.
  const TscCalibration cal = CalibrateTsc(1'000'000);
  const uint64_t t0 = ReadTscOrdered();
  const int64_t n0 = MonotonicRawNs();
  int64_t n1 = n0;
  while (n1 - n0 < 2'000'000) n1 = MonotonicRawNs();
  const double outer = cal.TicksToNs(ReadTscOrdered() - t0);
  EXPECT_GE(outer, static_cast<double>(n1 - n0) * 0.95);
}

}  // namespace
}  // namespace verbsemu::emulate
