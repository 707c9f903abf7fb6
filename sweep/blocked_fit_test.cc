#include "sweep/blocked_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "stats/stats.h"
#include "sweep/fit.h"

namespace verbsemu::sweep {
namespace {

TEST(BlockedFitTest, BlockOffsetsCancelAndAStalledRunIsSetAside) {
  // Three blocks of the line 10 + 2x with a little noise, each block
  // offset by 7 from the last; run 6 stalled at 3x its value.
  const std::vector<double> x = {0, 1, 2, 5, 0, 1, 2, 5, 0, 1, 2, 5};
  const std::vector<double> noise = {0.2,  -0.1, -0.2, 0.1, 0.1, 0.2,
                                     -0.1, -0.2, -0.2, 0.1, 0.2, -0.1};
  std::vector<double> y;
  for (size_t i = 0; i < x.size(); ++i) {
    y.push_back(10 + 2 * x[i] + 7 * static_cast<double>(i / 4) + noise[i]);
  }
  y[6] *= 3;
  const BlockedFit f = FitBlocked(x, y, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.slope, 2, 0.1);
  EXPECT_LE(f.slope_ci.lo, 2);
  EXPECT_GE(f.slope_ci.hi, 2);
  EXPECT_EQ(f.blocks, 3u);
  EXPECT_EQ(f.pairs, 18u);
  EXPECT_NEAR(f.intercept, 17, 0.3);
  EXPECT_EQ(f.outliers, std::vector<size_t>{6});
  // Least squares over the same runs follows the stall and the drift.
  EXPECT_GT(FitLine(x, y).slope_ci.hi - FitLine(x, y).slope_ci.lo,
            3 * (f.slope_ci.hi - f.slope_ci.lo));
}

TEST(BlockedFitTest, NoPairWithinABlockIsNoFit) {
  EXPECT_FALSE(FitBlocked({0, 1, 2}, {1, 2, 3}, {0, 1, 2}).ok);
  EXPECT_FALSE(FitBlocked({1, 1, 1}, {1, 2, 3}, {0, 0, 0}).ok);
  EXPECT_FALSE(FitBlocked({0, 1}, {1, 2}, {0}).ok);
  EXPECT_TRUE(FitBlocked({0, 1}, {1, 2}, {0, 0}).ok);
}

// A fake command's sweep: metric = 50 + 2.5 x, x in {0,1,2,5,10} µs, 4
// randomized blocks; each block offset at random by up to ±30% of the
// effect (2.5 x 10), Gaussian noise of SD 1, and one run in 20 stalled at
// 3x its value. The blocked fit's interval must cover the truth and be far
// narrower than least squares over the runs.
struct Sweep {
  std::vector<double> x, y;
  std::vector<int> block;
  size_t stalled = 0;
};

Sweep Drifting(uint64_t seed) {
  constexpr double kSlope = 2.5, kEffect = kSlope * 10;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> drift(-0.3 * kEffect, 0.3 * kEffect);
  std::normal_distribution<double> noise(0, 1);
  std::uniform_int_distribution<int> stalled(0, 19);
  const int stall = stalled(rng);
  Sweep s;
  s.stalled = static_cast<size_t>(stall);
  for (int b = 0; b < 4; ++b) {
    const double offset = drift(rng);
    for (double g : {0.0, 1.0, 2.0, 5.0, 10.0}) {
      double v = 50 + kSlope * g + offset + noise(rng);
      if (static_cast<int>(s.x.size()) == stall) v *= 3;
      s.x.push_back(g);
      s.y.push_back(v);
      s.block.push_back(b);
    }
  }
  return s;
}

TEST(BlockedFitTest, CoversTheTruthUnderDriftAndStallsAndIsNarrowerThanOls) {
  constexpr int kSeeds = 200;
  int covered = 0, ols_covered = 0, caught = 0, false_flags = 0;
  std::vector<double> widths, ols_widths;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Sweep s = Drifting(static_cast<uint64_t>(seed));
    const BlockedFit f = FitBlocked(s.x, s.y, s.block);
    const LineFit ols = FitLine(s.x, s.y);
    ASSERT_TRUE(f.ok && ols.ok);
    for (size_t i : f.outliers) (i == s.stalled ? caught : false_flags) += 1;
    covered += f.slope_ci.lo <= 2.5 && 2.5 <= f.slope_ci.hi;
    ols_covered += ols.slope_ci.lo <= 2.5 && 2.5 <= ols.slope_ci.hi;
    widths.push_back(f.slope_ci.hi - f.slope_ci.lo);
    ols_widths.push_back(ols.slope_ci.hi - ols.slope_ci.lo);
  }
  const double width = stats::Median(widths),
               ols_width = stats::Median(ols_widths);
  std::printf(
      "blocked robust fit: 95%% CI covers the true slope in %d of %d seeds "
      "(%.1f%%), median width %.3g\nleast squares over the runs: covers in "
      "%d of %d, median width %.3g\nwidth ratio (least squares / blocked): "
      "%.1f\nstalled run set aside in %d of %d; other runs set aside: %d "
      "of %d\n",
      covered, kSeeds, 100.0 * covered / kSeeds, width, ols_covered, kSeeds,
      ols_width, ols_width / width, caught, kSeeds, false_flags, kSeeds * 19);
  EXPECT_GE(covered, kSeeds * 93 / 100);
  EXPECT_GE(ols_width / width, 3.0);
  EXPECT_EQ(caught, kSeeds);
  EXPECT_LE(false_flags, kSeeds * 19 / 100);  // under 1% of the others
}

}  // namespace
}  // namespace verbsemu::sweep
