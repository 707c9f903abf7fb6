#include "sweep/fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace verbsemu::sweep {
namespace {

TEST(FitLineTest, ExactLine) {
  const LineFit f = FitLine({0, 1, 2, 5}, {3, 5, 7, 13});
  ASSERT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 3);
  EXPECT_DOUBLE_EQ(f.r2, 1);
  EXPECT_DOUBLE_EQ(f.slope_ci.lo, 2);
}

TEST(FitLineTest, TooFewOrDegeneratePointsAreNotAFit) {
  EXPECT_FALSE(FitLine({1, 2}, {1, 2}).ok);
  EXPECT_FALSE(FitLine({1, 1, 1}, {1, 2, 3}).ok);
  EXPECT_FALSE(FitLine({1, 2, 3}, {1, 2}).ok);
}

// Noisy runs of a known response: the 95% interval covers the true slope
// in about 95% of sweeps.
TEST(FitLineTest, SlopeIntervalCoversTheTruthAtItsLevel) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 2);
  const std::vector<double> grid = {0, 1, 2, 5, 10};
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x, y;
    for (int rep = 0; rep < 3; ++rep) {
      for (double g : grid) {
        x.push_back(g);
        y.push_back(40 + 1.5 * g + noise(rng));
      }
    }
    const LineFit f = FitLine(x, y);
    covered += f.slope_ci.lo <= 1.5 && 1.5 <= f.slope_ci.hi;
  }
  EXPECT_NEAR(static_cast<double>(covered) / trials, 0.95, 0.015);
}

TEST(SlopeRatioTest, RatioAndItsInterval) {
  LineFit app, pp;
  app.ok = pp.ok = true;
  app.slope = 3;
  app.slope_se = 0.3;
  pp.slope = 2;
  pp.slope_se = 0.1;
  const Ratio r = SlopeRatio(app, pp);
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.value, 1.5);
  EXPECT_NEAR(r.ci.hi - 1.5, 1.959964 * 1.5 * std::sqrt(0.01 + 0.0025), 1e-9);
  pp.slope = 0;
  EXPECT_FALSE(SlopeRatio(app, pp).ok);
}

TEST(TheilSenTest, StalledRunsDoNotTiltTheLine) {
  // Five runs at each of 0..50 us on a slope of 1, noise 0.5; then two
  // runs that stalled at milliseconds, as rxe in a TCG guest does.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 0.5);
  std::vector<double> x, y;
  for (int rep = 0; rep < 5; ++rep) {
    for (double us : {0, 10, 20, 30, 40, 50}) {
      x.push_back(us);
      y.push_back(20 + us + noise(rng));
    }
  }
  x.insert(x.end(), {0, 30});
  y.insert(y.end(), {2100, 3200});
  const RobustFit r = TheilSen(x, y);
  ASSERT_TRUE(r.ok);
  EXPECT_NEAR(r.slope, 1, 0.03);
  EXPECT_NEAR(r.intercept, 20, 0.6);
  EXPECT_LT(r.slope_ci.lo, 1);
  EXPECT_GT(r.slope_ci.hi, 1);
  EXPECT_LT(r.slope_ci.hi - r.slope_ci.lo, 0.1);
  // Least squares, by contrast, is tilted by the two stalls.
  EXPECT_GT(std::fabs(FitLine(x, y).slope - 1), 1);
}

TEST(TheilSenTest, ExactLineAndDegenerateInput) {
  const RobustFit f = TheilSen({0, 1, 2, 5}, {3, 5, 7, 13});
  ASSERT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 3);
  EXPECT_DOUBLE_EQ(f.slope_ci.lo, 2);
  EXPECT_DOUBLE_EQ(f.slope_ci.hi, 2);
  EXPECT_FALSE(TheilSen({1, 1, 1}, {1, 2, 3}).ok);
  EXPECT_FALSE(TheilSen({1, 2}, {1, 2}).ok);
}

}  // namespace
}  // namespace verbsemu::sweep
