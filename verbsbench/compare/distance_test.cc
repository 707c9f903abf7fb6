#include "verbsbench/compare/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace verbsbench::compare {
namespace {

TEST(Distance, IdenticalBinsAreAtDistanceZero) {
  const std::vector<Bin> bins = {{10, 11, 5}, {11, 13, 20}, {20, 21, 1}};
  const SharedBins s = Rebin(bins, bins);
  EXPECT_EQ(KsDistance(s), 0.0);
  EXPECT_EQ(Wasserstein1(s), 0.0);
}

TEST(Distance, DisjointRunsAreAtKsOneAndTheirShift) {
  const SharedBins s = Rebin({{0, 10, 100}}, {{20, 30, 7}});
  EXPECT_DOUBLE_EQ(KsDistance(s), 1.0);
  EXPECT_DOUBLE_EQ(Wasserstein1(s), 20.0);
}

TEST(Distance, OverlappingUniformsAreExact) {
  // U[0,10) against U[5,15): the CDFs differ by 0.5 at most, and the area
  // between them is the shift, 5.
  const SharedBins s = Rebin({{0, 10, 4}}, {{5, 15, 4}});
  EXPECT_EQ(s.edges, (std::vector<double>{0, 5, 10, 15}));
  EXPECT_DOUBLE_EQ(KsDistance(s), 0.5);
  EXPECT_DOUBLE_EQ(Wasserstein1(s), 5.0);
}

TEST(Distance, CrossingCdfsIntegrateTheAbsoluteGap) {
  // U[0,4) against U[1,3): the CDFs cross at 2; the gap is 0.25 at 1 and
  // 3 and the area is 2 * (1 * 0.25 / 2 + 1 * 0.25 / 2) = 0.5.
  const SharedBins s = Rebin({{0, 4, 1}}, {{1, 3, 1}});
  EXPECT_DOUBLE_EQ(KsDistance(s), 0.25);
  EXPECT_DOUBLE_EQ(Wasserstein1(s), 0.5);
}

TEST(Distance, ALayoutAndItsRefinementAgree) {
  // One bin of 10 against the same samples in two halves: uniform within a
  // bin makes them the same distribution.
  const SharedBins s = Rebin({{0, 10, 10}}, {{0, 5, 5}, {5, 10, 5}});
  EXPECT_NEAR(KsDistance(s), 0.0, 1e-15);
  EXPECT_NEAR(Wasserstein1(s), 0.0, 1e-12);
}

TEST(Distance, GapsBetweenBinsCarryNoMass) {
  const SharedBins s = Rebin({{0, 1, 1}, {9, 10, 1}}, {{0, 1, 1}, {9, 10, 1}});
  ASSERT_EQ(s.intervals(), 3u);
  EXPECT_EQ(s.mass[0][1], 0.0);
  EXPECT_DOUBLE_EQ(SharedQuantile(s, 0, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(SharedQuantile(s, 0, 0.75), 9.5);
}

TEST(Distance, BadBinsAreRefusedWithAReason) {
  EXPECT_STREQ(BinsProblem({{1, 2, 1}, {1.5, 3, 1}}),
               "bins out of order or overlapping");
  EXPECT_STREQ(BinsProblem({{2, 2, 1}}),
               "a bin's hi_ns is not above its lo_ns");
  EXPECT_STREQ(BinsProblem({{1, 2, -1}, {2, 3, 2}}),
               "a bin has a negative count");
  EXPECT_STREQ(BinsProblem({{1, 2, 0}}), "no samples in its bins");
  EXPECT_STREQ(BinsProblem({}), "no samples in its bins");
  EXPECT_STREQ(BinsProblem({{1, NAN, 1}}),
               "a bin edge or count is not a finite number");
  EXPECT_EQ(BinsProblem({{1, 2, 1}, {2, 3, 0}}), nullptr);
  EXPECT_THROW(Rebin({{1, 2, 1}}, {{3, 2, 1}}), std::invalid_argument);
}

TEST(Distance, KsPValueFollowsKolmogorovsDistribution) {
  EXPECT_EQ(KsPValue(0, 100, 100), 1.0);
  EXPECT_EQ(KsPValue(0.5, 0, 100), 1.0);
  // Large samples: lambda = sqrt(nm/(n+m)) d; Q(1) = 0.26999967.
  const double n = 2e10, en = std::sqrt(n / 2);
  EXPECT_NEAR(KsPValue(1 / en, n, n), 0.27, 1e-4);
  // Q(0.5) = 0.9639, Q(1.5) = 0.0222, Q(2) = 6.7e-4.
  EXPECT_NEAR(KsPValue(0.5 / en, n, n), 0.9639, 1e-4);
  EXPECT_NEAR(KsPValue(1.5 / en, n, n), 0.0222, 1e-4);
  EXPECT_NEAR(KsPValue(2 / en, n, n), 6.7e-4, 1e-5);
  // The two series meet at lambda 1.18.
  EXPECT_NEAR(KsPValue((1.18 - 1e-9) / en, n, n),
              KsPValue((1.18 + 1e-9) / en, n, n), 1e-8);
  EXPECT_LT(KsPValue(1.0, 1000, 1000), 1e-100);
}

TEST(Distance, SamplesGoOnTheOnePercentLayout) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(10000.0), 0.2);
  std::vector<double> v(5000);
  for (double& x : v) x = d(rng);
  double total = 0;
  for (const Bin& b : BinSamples(v)) {
    total += b.count;
    EXPECT_LE(b.hi / b.lo, 1.0101);
    EXPECT_GT(b.count, 0);
  }
  EXPECT_EQ(total, 5000);
}

TEST(Distance, AShiftOfTheSamplesIsTheirWassersteinDistance) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> d(std::log(10000.0), 0.1);
  std::vector<double> a(20000), b;
  for (double& x : a) x = d(rng);
  for (double x : a) b.push_back(x + 300);
  const SharedBins s = Rebin(BinSamples(a), BinSamples(b));
  EXPECT_NEAR(Wasserstein1(s), 300, 300 * 0.02);
  EXPECT_GT(KsDistance(s), 0.05);
  EXPECT_LT(KsDistance(s), 0.2);
}

TEST(Distance, OverlayPdfIntegratesToOneAndCdfEndsAtOne) {
  const SharedBins s = Rebin({{0, 10, 3}, {10, 12, 1}}, {{5, 15, 4}});
  double area[2] = {0, 0};
  for (const OverlayRow& r : Overlay(s)) {
    for (int k = 0; k < 2; ++k) area[k] += r.pdf[k] * (r.hi - r.lo);
  }
  EXPECT_NEAR(area[0], 1.0, 1e-12);
  EXPECT_NEAR(area[1], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(Overlay(s).back().cdf[0], 1.0);
  EXPECT_DOUBLE_EQ(Overlay(s).back().cdf[1], 1.0);
}

}  // namespace
}  // namespace verbsbench::compare
