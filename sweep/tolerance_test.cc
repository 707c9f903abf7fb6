#include "sweep/tolerance.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

BlockedFit Line(double base, double slope, double lo, double hi) {
  BlockedFit f;
  f.ok = true;
  f.intercept = base;
  f.slope = slope;
  f.slope_ci = {lo, hi};
  return f;
}

TEST(ToleranceTest, LatencyWithinOneAndFivePercent) {
  // 100 + 2x: 1% (1.0) at 0.5 µs, 5% at 2.5 µs; slope 1..4 bounds them.
  const auto t = LatencyTolerance(Line(100, 2, 1, 4), 10);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_TRUE(t[0].ok);
  EXPECT_DOUBLE_EQ(t[0].within, 0.01);
  EXPECT_DOUBLE_EQ(t[0].value, 0.5);
  EXPECT_DOUBLE_EQ(t[0].ci.lo, 0.25);
  EXPECT_DOUBLE_EQ(t[0].ci.hi, 1.0);
  EXPECT_DOUBLE_EQ(t[1].value, 2.5);
  EXPECT_FALSE(t[1].extrapolated);
  EXPECT_TRUE(LatencyTolerance(Line(100, 2, 1, 4), 2)[1].extrapolated);
}

TEST(ToleranceTest, AnIntervalThroughZeroHasNoUpperEnd) {
  const auto t = LatencyTolerance(Line(100, -2, -3, 1), 10);
  EXPECT_DOUBLE_EQ(t[1].value, 2.5);  // a metric that falls counts too
  EXPECT_DOUBLE_EQ(t[1].ci.lo, 5.0 / 3);
  EXPECT_TRUE(std::isinf(t[1].ci.hi));
  EXPECT_FALSE(LatencyTolerance(Line(0, 2, 1, 3), 10)[0].ok);
  EXPECT_FALSE(LatencyTolerance(BlockedFit{}, 10)[0].ok);
}

TEST(ToleranceTest, BandwidthShareFromTheInverseShareFit) {
  // 10 + 1 (1/share - 1): 5% (0.5) at 1/share - 1 = 0.5, share 2/3.
  const auto t = BandwidthTolerance(Line(10, 1, 0.5, 2), 0.25);
  EXPECT_NEAR(t[1].value, 2.0 / 3, 1e-12);
  EXPECT_NEAR(t[1].ci.lo, 0.5, 1e-12);  // the steepest slope: 1/(1+1)
  EXPECT_NEAR(t[1].ci.hi, 0.8, 1e-12);  // the flattest: 1/(1+0.25)
  EXPECT_FALSE(t[1].extrapolated);
  const auto flat = BandwidthTolerance(Line(10, 0, -1, 1), 0.25);
  EXPECT_DOUBLE_EQ(flat[0].value, 0);  // nothing tested moves it
  EXPECT_TRUE(flat[0].extrapolated);
  EXPECT_DOUBLE_EQ(flat[0].ci.lo, 0);
}

}  // namespace
}  // namespace verbsemu::sweep
