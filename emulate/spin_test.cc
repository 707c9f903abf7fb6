#include "emulate/spin.h"

#include <gtest/gtest.h>

#include "emulate/simulated_clock.h"
#include "emulate/tsc.h"

namespace verbsemu::emulate {
namespace {

TEST(SpinUntilTest, StopsAtDeadline) {
  SimulatedClock clock(/*start=*/100, /*relax_step=*/3);
  const uint64_t end = SpinUntil(clock, 130);
  EXPECT_EQ(end, 130u);
  EXPECT_EQ(clock.relaxes(), 10u);
}

TEST(SpinUntilTest, PastDeadlineReturnsImmediately) {
  SimulatedClock clock(500, 1);
  EXPECT_EQ(SpinUntil(clock, 100), 500u);
  EXPECT_EQ(clock.relaxes(), 0u);
}

TEST(SpinUntilTest, OvershootBoundedByStep) {
  SimulatedClock clock(0, 7);
  const uint64_t end = SpinUntil(clock, 100);
  EXPECT_GE(end, 100u);
  EXPECT_LT(end, 107u);
}

TEST(DelayModelTest, SubtractsFixedCost) {
  DelayModel model(/*target_ticks=*/1000, /*fixed_cost_ticks=*/40);
  EXPECT_TRUE(model.enabled());
  EXPECT_EQ(model.Deadline(5000), 5960u);
}

TEST(DelayModelTest, FixedCostLargerThanTargetClampsToZero) {
  DelayModel model(30, 40);
  EXPECT_TRUE(model.enabled());
  EXPECT_EQ(model.Deadline(5000), 5000u);
  // A read's two legs (60) still outlast the fixed cost by 20.
  EXPECT_EQ(model.Deadline(5000, 2), 5020u);
  EXPECT_FALSE(model.WaitsNothing());
}

TEST(DelayModelTest, TwoLegsSubtractTheFixedCostOnce) {
  DelayModel model(1000, 40);
  EXPECT_EQ(model.Deadline(5000, 2), 6960u);
  EXPECT_FALSE(model.WaitsNothing());
}

TEST(DelayModelTest, TargetWithinFixedCostWaitsNothing) {
  DelayModel model(20, 40);
  EXPECT_TRUE(model.enabled());
  EXPECT_TRUE(model.WaitsNothing());
  EXPECT_EQ(model.Deadline(5000, 2), 5000u);
  EXPECT_FALSE(DelayModel(21, 40).WaitsNothing());
}

TEST(DelayModelTest, ZeroTargetIsDisabled) {
  DelayModel model(0, 40);
  EXPECT_FALSE(model.enabled());
  DelayModel default_model;
  EXPECT_FALSE(default_model.enabled());
}

TEST(DelayModelTest, SpinWithSimulatedClockReachesDeadline) {
  SimulatedClock clock(1'000'000, 1);
  DelayModel model(2000, 50);
  const uint64_t start = clock.Now();
  const uint64_t end = SpinUntil(clock, model.Deadline(start));
  EXPECT_EQ(end - start, 1950u);
}

TEST(TscCalibrationTest, Conversions) {
  TscCalibration cal;
  cal.ticks_per_ns = 2.5;
  EXPECT_EQ(cal.NsToTicks(1000), 2500u);
  EXPECT_EQ(cal.NsToTicks(-5), 0u);
  EXPECT_DOUBLE_EQ(cal.TicksToNs(2500), 1000.0);
}

TEST(TscCalibrationTest, RealCalibrationIsPlausible) {
  // Not a timing assertion: only that the TSC runs forward at a rate a real
  // x86 machine can have (0.5-10 GHz).
  const TscCalibration cal = CalibrateTsc(1'000'000);
  EXPECT_GT(cal.ticks_per_ns, 0.5);
  EXPECT_LT(cal.ticks_per_ns, 10.0);
}

}  // namespace
}  // namespace verbsemu::emulate
