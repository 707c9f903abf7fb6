#include "verbsbench/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace verbsbench {
namespace {

TEST(Recorder, KeepsOneMinimumPerCycle) {
  Recorder r(3);
  for (double v : {5.0, 2.0, 9.0, 7.0, 8.0, 6.0, 4.0}) r.Add(v);
  r.Finish();
  EXPECT_EQ(r.cycle_minimums(), (std::vector<double>{2.0, 6.0, 4.0}));
  r.Finish();  // idempotent
  EXPECT_EQ(r.cycle_minimums().size(), 3u);
}

TEST(Recorder, RawSamplesAreCapped) {
  Recorder r(10, 4);
  for (int i = 0; i < 10; ++i) r.Add(i + 1);
  EXPECT_EQ(r.raw(), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Recorder, JsonRoundTripAndMerge) {
  Recorder a(2), b(2);
  for (double v : {10.0, 20.0, 30.0}) a.Add(v);
  for (double v : {1.0, 40.0}) b.Add(v);
  const Recorder a2 =
      Recorder::FromJson(nlohmann::json::parse(a.ToJson().dump()));
  EXPECT_EQ(a2.ToJson(), a.ToJson());
  Recorder m = a2;
  m.Merge(b);
  EXPECT_EQ(m.count(), 5u);
  EXPECT_EQ(m.histogram().min(), 1.0);
  EXPECT_EQ(m.cycle_minimums(), (std::vector<double>{10.0, 30.0, 1.0}));
}

TEST(StatsJson, HasContractFieldsAndValidPdfCdf) {
  Recorder r(100);
  for (int i = 1; i <= 1000; ++i) r.Add(1000.0 + i);
  const auto j = nlohmann::json::parse(StatsJson(r).dump());
  for (const char* key : {"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns",
                          "max_ns", "mean_ns", "stdev_ns", "skew", "kurtosis",
                          "count", "modes", "cycle_min_ns", "histogram"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["count"], 1000);
  EXPECT_EQ(j["cycle_min_ns"].size(), 10u);
  EXPECT_EQ(j["cycle_min_ns"][0], 1001.0);
  double integral = 0, last_cdf = 0;
  for (const auto& b : j["histogram"]) {
    integral += b["pdf"].get<double>() *
                (b["hi_ns"].get<double>() - b["lo_ns"].get<double>());
    EXPECT_GE(b["cdf"].get<double>(), last_cdf);
    last_cdf = b["cdf"];
  }
  EXPECT_NEAR(integral, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(last_cdf, 1.0);
  EXPECT_NEAR(j["p50_ns"].get<double>(), 1500, 15);
}

TEST(StatsJson, EmptyRecorderIsValid) {
  Recorder r;
  const auto j = nlohmann::json::parse(StatsJson(r).dump());
  EXPECT_EQ(j["count"], 0);
  EXPECT_TRUE(j["histogram"].empty());
}

TEST(Recorder, SharesAreOneSamplePerMessageAcrossCycles) {
  Recorder r(4, 3);
  r.Add(9.0);
  r.AddShares(5.0, 6);  // ends cycle 1, then three of cycle 2
  r.Add(2.0, /*migrated=*/true);
  r.AddShares(7.0, 2, /*migrated=*/true);
  r.Finish();
  EXPECT_EQ(r.count(), 10u);
  EXPECT_EQ(r.observations(), 4u);
  EXPECT_EQ(r.migrated(), 3u);
  EXPECT_EQ(r.cycle_minimums(), (std::vector<double>{5.0, 2.0, 7.0}));
  EXPECT_EQ(r.raw(), (std::vector<double>{9.0, 5.0, 5.0}));
  EXPECT_DOUBLE_EQ(r.histogram().mean(), (9.0 + 30.0 + 2.0 + 14.0) / 10);
}

// bw: each message gets its batch's interval divided by the batch; the
// samples add up to the time from the start to the last completion, so
// their mean is the reciprocal of the message rate.
TEST(CompletionIntervals, OneSharePerMessageSummingToTheStream) {
  const Timer timer(1e9, 7.0);  // 1 tick = 1 ns; no overhead subtracted
  Recorder rec(1000);
  CompletionIntervals intervals(timer, rec, Stamp{1000, 3});
  intervals.Completed(Stamp{1100, 3}, 4);  // 25 ns each
  intervals.Completed(Stamp{1400, 3}, 2);  // 150 ns each
  intervals.Completed(Stamp{1450, 5}, 1);  // moved to CPU 5
  intervals.Completed(Stamp{1500, 5}, 0);  // nothing retired: no interval
  EXPECT_EQ(rec.count(), 7u);
  EXPECT_EQ(rec.observations(), 3u);
  EXPECT_EQ(rec.migrated(), 1u);
  EXPECT_DOUBLE_EQ(rec.histogram().mean() * 7, 450.0);
  EXPECT_DOUBLE_EQ(rec.histogram().min(), 25.0);
  EXPECT_DOUBLE_EQ(rec.histogram().max(), 150.0);
  EXPECT_NEAR(rec.histogram().Quantile(0.5), 25.0, 25.0 * 0.01);
}

TEST(Recorder, JsonRoundTripKeepsMigrationsAndObservations) {
  Recorder a(2), b(2);
  a.Add(10.0, true);
  a.AddShares(3.0, 5);
  b.Add(4.0, true);
  const Recorder a2 =
      Recorder::FromJson(nlohmann::json::parse(a.ToJson().dump()));
  EXPECT_EQ(a2.migrated(), 1u);
  EXPECT_EQ(a2.observations(), 2u);
  Recorder m = a2;
  m.Merge(b);
  EXPECT_EQ(m.migrated(), 2u);
  EXPECT_EQ(m.observations(), 3u);
  const auto j = StatsJson(m);
  EXPECT_EQ(j["migrated_samples"], 2);
  EXPECT_EQ(j["observations"], 3);
  EXPECT_EQ(j["count"], 7);
}

void ExpectPdfAndCdf(const nlohmann::json& bins) {
  ASSERT_FALSE(bins.empty());
  double integral = 0, last_cdf = 0;
  for (const auto& b : bins) {
    integral += b["pdf"].get<double>() *
                (b["hi_ns"].get<double>() - b["lo_ns"].get<double>());
    EXPECT_GE(b["cdf"].get<double>(), last_cdf);
    last_cdf = b["cdf"];
  }
  EXPECT_NEAR(integral, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(last_cdf, 1.0);
}

// Confidence bins the per-cycle minimums like every sample: their own
// summary, modes and PDF/CDF. Here the minimums sit at 1000 ns in 60 cycles
// and 1300 ns in 40: two modes.
TEST(StatsJson, CycleMinimumsHaveTheirOwnDistribution) {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> noise(1.0 / 500);
  Recorder r(50);
  for (int cycle = 0; cycle < 100; ++cycle) {
    const double floor = cycle % 5 < 3 ? 1000.0 : 1300.0;
    r.Add(floor);
    for (int i = 1; i < 50; ++i) r.Add(floor + 1 + noise(rng));
  }
  const auto j = nlohmann::json::parse(StatsJson(r).dump());
  const auto& c = j["cycle_min"];
  EXPECT_EQ(c["count"], 100);
  EXPECT_DOUBLE_EQ(c["min_ns"].get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(c["max_ns"].get<double>(), 1300.0);
  EXPECT_NEAR(c["mean_ns"].get<double>(), 1120.0, 1e-9);
  ExpectPdfAndCdf(c["histogram"]);
  ASSERT_EQ(c["modes"].size(), 2u);
  EXPECT_NEAR(c["modes"][0]["fraction"].get<double>(), 0.6, 1e-9);
  EXPECT_TRUE(c["multimodal"].get<bool>());
  EXPECT_EQ(j["cycle_min_summary"]["p50_ns"], c["p50_ns"]);
}

TEST(StatsJson, ModeResolutionIsPassedToTheModes) {
  Recorder r(1000);
  // Two narrow peaks 6% apart.
  for (int i = 0; i < 2000; ++i) r.Add(i % 2 ? 1000.0 : 1060.0);
  EXPECT_EQ(StatsJson(r)["modes"].size(), 1u);
  const auto fine = StatsJson(r, {.mode_resolution = 0.02});
  EXPECT_EQ(fine["modes"].size(), 2u);
  EXPECT_EQ(fine["mode_resolution"], 0.02);
}

}  // namespace
}  // namespace verbsbench
