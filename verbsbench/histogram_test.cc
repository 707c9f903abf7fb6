#include "verbsbench/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace verbsbench {
namespace {

double ExactQuantile(std::vector<double> sorted, double q) {
  const size_t n = sorted.size();
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

void ExpectQuantilesWithin(const std::vector<double>& data, double tolerance) {
  LogHistogram h;
  for (double v : data) h.Add(v);
  std::vector<double> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  for (double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999,
                   0.9999, 1.0}) {
    const double exact = ExactQuantile(sorted, q);
    const double est = h.Quantile(q);
    EXPECT_LE(std::fabs(est - exact), tolerance * exact)
        << "q=" << q << " exact=" << exact << " est=" << est;
  }
}

TEST(LogHistogram, LognormalQuantilesWithinOnePercent) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> dist(std::log(5000.0), 0.8);
  std::vector<double> data(200000);
  for (auto& v : data) v = dist(rng);
  ExpectQuantilesWithin(data, 0.01);
}

TEST(LogHistogram, BimodalHeavyTailQuantilesWithinOnePercent) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> fast(2000, 50), slow(9000, 400);
  std::exponential_distribution<double> tail(1.0 / 1e6);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> data;
  for (int i = 0; i < 100000; ++i) {
    const double r = u(rng);
    double v = r < 0.7 ? fast(rng) : r < 0.995 ? slow(rng) : 1e4 + tail(rng);
    data.push_back(std::max(v, 1.0));
  }
  ExpectQuantilesWithin(data, 0.01);
}

TEST(LogHistogram, MemoryIsBoundedByLayoutNotSamples) {
  LogHistogram h;
  const size_t bins_before = h.ToJson()["bins"].size();
  EXPECT_EQ(bins_before, 0u);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(1, 1e6);
  for (int i = 0; i < 1000000; ++i) h.Add(u(rng));
  // ~ln(1e6)/ln(1.01) bins at most, whatever the sample count.
  EXPECT_LE(h.ToJson()["bins"].size(), 1400u);
  EXPECT_EQ(h.count(), 1000000u);
}

TEST(LogHistogram, ExactMoments) {
  LogHistogram h;
  for (double v : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) h.Add(v);
  EXPECT_DOUBLE_EQ(h.mean(), 5.0);
  EXPECT_NEAR(h.stdev(), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(h.min(), 2.0);
  EXPECT_DOUBLE_EQ(h.max(), 9.0);
  // Symmetric data has zero skew.
  LogHistogram s;
  for (double v : {1.0, 2.0, 3.0, 4.0, 5.0}) s.Add(v);
  EXPECT_NEAR(s.skewness(), 0.0, 1e-12);
  EXPECT_NEAR(s.kurtosis(), -1.3, 1e-12);  // uniform-like: 1.7 - 3
}

TEST(LogHistogram, SkewSignFollowsTail) {
  LogHistogram h;
  for (int i = 0; i < 100; ++i) h.Add(10);
  h.Add(1000);
  EXPECT_GT(h.skewness(), 5);
  EXPECT_GT(h.kurtosis(), 10);
}

TEST(LogHistogram, MergeEqualsSequentialAdd) {
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> dist(8, 1);
  LogHistogram all, a, b;
  for (int i = 0; i < 5000; ++i) {
    const double v = dist(rng);
    all.Add(v);
    (i % 3 ? a : b).Add(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_NEAR(a.mean(), all.mean(), 1e-9 * all.mean());
  EXPECT_NEAR(a.stdev(), all.stdev(), 1e-9 * all.stdev());
  EXPECT_NEAR(a.skewness(), all.skewness(), 1e-6);
  EXPECT_NEAR(a.kurtosis(), all.kurtosis(), 1e-6);
  for (double q : {0.1, 0.5, 0.99}) EXPECT_EQ(a.Quantile(q), all.Quantile(q));
}

TEST(LogHistogram, JsonRoundTripIsLossless) {
  LogHistogram h;
  for (double v : {0.5, 3.0, 17.0, 17.5, 1e5, 2e13}) h.Add(v);
  const LogHistogram back =
      LogHistogram::FromJson(nlohmann::json::parse(h.ToJson().dump()));
  EXPECT_EQ(back.ToJson(), h.ToJson());
  EXPECT_EQ(back.Quantile(0.5), h.Quantile(0.5));
}

TEST(LogHistogram, FromJsonRejectsInconsistentCounts) {
  LogHistogram h;
  h.Add(10);
  auto j = h.ToJson();
  j["count"] = 2;
  EXPECT_THROW(LogHistogram::FromJson(j), std::invalid_argument);
}

TEST(LogHistogram, UnderflowAndOverflowAreClampedToExactExtremes) {
  LogHistogram h(0.005, 1.0, 1e6);
  h.Add(0.25);
  h.Add(5e6);
  h.Add(100);
  EXPECT_EQ(h.Quantile(0.0), 0.25);
  EXPECT_EQ(h.Quantile(1.0), 5e6);
  const auto bins = h.Bins();
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_LE(bins.front().lo, 0.25);
  EXPECT_GE(bins.back().hi, 5e6);
}

TEST(LogHistogram, BinsCoverEverySample) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(8, 2);
  LogHistogram h;
  for (int i = 0; i < 10000; ++i) h.Add(dist(rng));
  for (int merge : {1, 4, 16}) {
    uint64_t total = 0;
    double prev_hi = 0;
    for (const auto& b : h.Bins(merge)) {
      total += b.count;
      EXPECT_LT(b.lo, b.hi);
      EXPECT_GE(b.lo, prev_hi * (1 - 1e-12));
      prev_hi = b.hi;
    }
    EXPECT_EQ(total, h.count());
  }
}

// Samples at the layout's bounds land next to the underflow and overflow
// bins without overlapping them (a comparison refuses overlapping bins).
TEST(LogHistogram, BinsAtTheLayoutsBoundsDoNotOverlapItsEnds) {
  LogHistogram h(0.005, 1.0, 1e6);
  for (double v : {0.0, 1.0, 1090.0, 5e5, 1e6, 2e6}) h.Add(v);
  for (int merge : {1, 4}) {
    const auto bins = h.Bins(merge);
    ASSERT_EQ(bins.size(), 6u);
    for (size_t i = 1; i < bins.size(); ++i) {
      EXPECT_GE(bins[i].lo, bins[i - 1].hi) << "bin " << i;
      EXPECT_LT(bins[i].lo, bins[i].hi) << "bin " << i;
    }
  }
}

TEST(LogHistogram, FindsOneModeOrTwo) {
  std::mt19937_64 rng(6);
  std::normal_distribution<double> a(2000, 40), b(8000, 150);
  LogHistogram uni, bi;
  for (int i = 0; i < 50000; ++i) {
    uni.Add(a(rng));
    bi.Add(i % 3 ? a(rng) : b(rng));
  }
  ASSERT_EQ(uni.Modes().size(), 1u);
  EXPECT_NEAR(uni.Modes()[0].value, 2000, 200);
  const auto modes = bi.Modes();
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_NEAR(modes[0].value, 2000, 200);
  EXPECT_NEAR(modes[1].value, 8000, 800);
  EXPECT_NEAR(modes[0].fraction, 2.0 / 3, 0.02);
  EXPECT_NEAR(modes[1].fraction, 1.0 / 3, 0.02);
}

TEST(LogHistogram, RejectsBadLayout) {
  EXPECT_THROW(LogHistogram(0.0), std::invalid_argument);
  EXPECT_THROW(LogHistogram(0.01, 10, 5), std::invalid_argument);
}

TEST(LogHistogram, RepeatedAddEqualsSingleAdds) {
  std::mt19937_64 rng(9);
  std::lognormal_distribution<double> d(std::log(3000.0), 0.5);
  LogHistogram one_by_one, repeated;
  for (int i = 0; i < 2000; ++i) {
    const double v = d(rng);
    const uint64_t n = 1 + static_cast<uint64_t>(i % 7);
    for (uint64_t k = 0; k < n; ++k) one_by_one.Add(v);
    repeated.Add(v, n);
  }
  repeated.Add(5.0, 0);  // nothing
  EXPECT_EQ(repeated.count(), one_by_one.count());
  EXPECT_EQ(repeated.min(), one_by_one.min());
  EXPECT_EQ(repeated.max(), one_by_one.max());
  EXPECT_NEAR(repeated.mean(), one_by_one.mean(), 1e-9 * one_by_one.mean());
  EXPECT_NEAR(repeated.stdev(), one_by_one.stdev(), 1e-9 * one_by_one.stdev());
  EXPECT_NEAR(repeated.skewness(), one_by_one.skewness(), 1e-7);
  EXPECT_NEAR(repeated.kurtosis(), one_by_one.kurtosis(), 1e-7);
  EXPECT_EQ(repeated.ToJson()["bins"], one_by_one.ToJson()["bins"]);
}

// Two equal peaks (sd 0.5%) `gap` apart, relative.
LogHistogram TwoPeaks(double gap) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> a(4000, 20), b(4000 * (1 + gap), 20);
  LogHistogram h;
  for (int i = 0; i < 40000; ++i) h.Add(i % 2 ? a(rng) : b(rng));
  return h;
}

// Peaks closer than the resolution are one mode, farther ones two. The
// default (0.2) merges peaks 5% apart, like Confidence's 3.9 us / 4.1 us
// switch-ASIC minimums; 0.04 separates them.
TEST(LogHistogram, ModeResolutionIsTheGapBelowWhichPeaksAreOne) {
  EXPECT_EQ(TwoPeaks(0.05).Modes().size(), 1u);
  const auto fine = TwoPeaks(0.05).Modes(0.04);
  ASSERT_EQ(fine.size(), 2u);
  EXPECT_NEAR(fine[0].value, 4000, 40);
  EXPECT_NEAR(fine[1].value, 4200, 42);
  EXPECT_NEAR(fine[0].fraction, 0.5, 0.02);
  for (const double resolution : {0.04, 0.1, 0.2, 0.4}) {
    EXPECT_EQ(TwoPeaks(resolution * 0.7).Modes(resolution).size(), 1u)
        << resolution;
    EXPECT_EQ(TwoPeaks(resolution * 1.3).Modes(resolution).size(), 2u)
        << resolution;
  }
  EXPECT_EQ(TwoPeaks(0.0).Modes(kFinestModeResolution).size(), 1u);
  EXPECT_EQ(TwoPeaks(0.03).Modes(kFinestModeResolution).size(), 2u);
}

}  // namespace
}  // namespace verbsbench
