#include "verbsbench/stats.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace verbsbench
