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

}  // namespace
}  // namespace verbsemu::sweep
