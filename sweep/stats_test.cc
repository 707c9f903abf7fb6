#include "sweep/stats.h"

#include <gtest/gtest.h>

#include <random>

#include "stats/stats.h"

namespace verbsemu::sweep {
namespace {

TEST(StudentT975Test, TableAndLimit) {
  EXPECT_NEAR(stats::T975(1), 12.706, 1e-3);
  EXPECT_NEAR(stats::T975(10), 2.228, 1e-3);
  EXPECT_NEAR(stats::T975(50), 2.009, 0.002);
  EXPECT_NEAR(stats::T975(1000), 1.962, 0.002);
  EXPECT_GT(stats::T975(1'000'000), 1.9599);
}

TEST(SummarizeTest, SmallSamplesAreExact) {
  const Summary s = Summarize({3, 1, 2, 10});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_NEAR(s.sd, 4.0825, 1e-4);
  EXPECT_NEAR(s.mean_ci.hi - s.mean, 3.182 * 4.0825 / 2, 1e-3);
  const Summary one = Summarize({7});
  EXPECT_EQ(one.mean_ci.lo, 7);
  EXPECT_EQ(one.median_ci.hi, 7);
}

TEST(SummarizeTest, BootstrapIsReproducibleAndCoversTheMedian) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(100, 5);
  std::vector<double> v(41);
  for (double& x : v) x = noise(rng);
  const Summary a = Summarize(v, 3), b = Summarize(v, 3);
  EXPECT_EQ(a.median_ci.lo, b.median_ci.lo);
  EXPECT_LE(a.median_ci.lo, a.median);
  EXPECT_GE(a.median_ci.hi, a.median);
  EXPECT_LT(a.median_ci.hi - a.median_ci.lo, 10);
}

// Over many samples from a known distribution, the 95% t interval covers
// the true mean about 95% of the time.
TEST(SummarizeTest, MeanIntervalCoversTheTruthAtItsLevel) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(50, 3);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(8);
    for (double& x : v) x = noise(rng);
    const Summary s = Summarize(v, 1, 10);
    covered += s.mean_ci.lo <= 50 && 50 <= s.mean_ci.hi;
  }
  EXPECT_NEAR(static_cast<double>(covered) / trials, 0.95, 0.015);
}

}  // namespace
}  // namespace verbsemu::sweep
