#include "verbsbench/compare/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "verbsbench/compare/format.h"
#include "verbsbench/compare/test_runs.h"

namespace verbsbench::compare {
namespace {

using nlohmann::json;
using test_runs::LogNormal;
using test_runs::RunJson;

// A lat run of two points around 10 and 12 us, every sample shifted by
// `shift_ns`; the same seeds give the same samples.
compare::Run Lat(const std::string& label, bool keep_raw, double shift_ns = 0,
                 int n = 2000) {
  return ParseRun(
      RunJson(Mode::kLat,
              {{Op::kSend, 8, false, LogNormal(10000, n, 1, shift_ns)},
               {Op::kWrite, 8, false, LogNormal(12000, n, 2, shift_ns)}},
              keep_raw),
      label);
}

std::string ErrorOf(const compare::Run& a, const compare::Run& b,
                    Source source = Source::kAuto) {
  try {
    Compare(a, b, source);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Compare, IdenticalRunsHaveRatiosOneAndNoDistance) {
  for (bool raw : {true, false}) {
    const Comparison c = Compare(Lat("a", raw), Lat("b", raw));
    ASSERT_EQ(c.points.size(), 2u);
    EXPECT_TRUE(c.only_in_base.empty() && c.only_in_new.empty());
    for (const PointComparison& p : c.points) {
      EXPECT_EQ(p.from, raw ? "raw" : "bins");
      EXPECT_EQ(p.quantiles.size(), QuantileNames().size());
      for (const QuantileRatio& q : p.quantiles) {
        EXPECT_EQ(q.ratio, 1.0) << p.id << " " << q.name;
      }
      EXPECT_EQ(p.ks, 0.0);
      EXPECT_EQ(p.wasserstein_ns, 0.0);
      EXPECT_EQ(p.ks_pvalue, 1.0);
    }
    EXPECT_TRUE(Judge(c, {{{"p50", 1.0}}, 0.0, 0.0}).empty());
  }
}

TEST(Compare, AShiftedRunIsSlowerByItsShift) {
  // +10 us on a 10 us median: every quantile moves, the distributions no
  // longer overlap (sigma 0.1), and the area between the CDFs is the shift.
  for (bool raw : {true, false}) {
    const Comparison c = Compare(Lat("a", raw), Lat("b", raw, 10000));
    const PointComparison& p = c.points[0];
    EXPECT_NEAR(p.Quantile("p50")->ratio, 2.0, 0.02);
    EXPECT_GT(p.Quantile("min")->ratio, 1.0);
    EXPECT_NEAR(p.wasserstein_ns, 10000, 10000 * (raw ? 0.01 : 0.04));
    EXPECT_GT(p.ks, 0.999);
    EXPECT_LT(p.ks_pvalue, 1e-100);
  }
}

TEST(Compare, ASmallShiftIsASmallDistance) {
  const Comparison c = Compare(Lat("a", true), Lat("b", true, 200));
  const PointComparison& p = c.points[0];
  EXPECT_NEAR(p.Quantile("p50")->ratio, 1.02, 0.006);
  EXPECT_NEAR(p.wasserstein_ns, 200, 200 * 0.05);
  EXPECT_GT(p.ks, 0.03);
  EXPECT_LT(p.ks, 0.15);
}

TEST(Compare, QuantilesComeFromTheStatsElseTheSamplesElseTheBins) {
  const compare::Run a = Lat("a", true);
  const Comparison ca = Compare(a, a);
  const PointComparison& p = ca.points[0];
  EXPECT_EQ(p.Quantile("p50")->from, "stats");
  EXPECT_EQ(p.Quantile("p50")->base_ns, a.points[0].stats.at("p50"));
  EXPECT_EQ(p.Quantile("p25")->from, "raw");
  std::vector<double> sorted = a.points[0].raw;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(p.Quantile("p25")->base_ns, sorted[499]);  // rank 500 of 2000
  const compare::Run b = Lat("b", false);
  const Comparison cb = Compare(b, b);
  const PointComparison& q = cb.points[0];
  EXPECT_EQ(q.Quantile("p25")->from, "bins");
  EXPECT_NEAR(q.Quantile("p25")->base_ns, sorted[499], sorted[499] * 0.04);
  // Interpolated in the bins, yet never outside the run's own extremes.
  for (const QuantileRatio& r : q.quantiles) {
    EXPECT_GE(r.base_ns, b.points[0].stats.at("min")) << r.name;
    EXPECT_LE(r.base_ns, b.points[0].stats.at("max")) << r.name;
  }
}

TEST(Compare, TheSourceCanBeChosen) {
  const PointComparison p =
      Compare(Lat("a", true), Lat("b", true, 500), Source::kBins).points[0];
  EXPECT_EQ(p.from, "bins");
  EXPECT_EQ(p.Quantile("p25")->from, "bins");
  EXPECT_EQ(ErrorOf(Lat("a", true), Lat("b", false), Source::kRaw),
            "b: lat send size 8: keeps 0 of its 2000 samples (run it with "
            "--raw, --raw-max at least -n)");
  // Auto falls back to the bins when one run lacks the samples.
  EXPECT_EQ(Compare(Lat("a", true), Lat("b", false)).points[0].from, "bins");
}

TEST(Compare, MatchesPointsByIdentityAndListsTheRest) {
  compare::Run a = Lat("a", false), b = Lat("b", false);
  b.points.erase(b.points.begin());
  b.points.push_back(a.points[0]);
  b.points.back().identity.size = 16;
  b.points.back().id = b.points.back().identity.Id();
  EXPECT_EQ(b.points.back().id, "lat send size 16");
  const Comparison c = Compare(a, b);
  ASSERT_EQ(c.points.size(), 1u);
  EXPECT_EQ(c.points[0].id, "lat write size 8");
  EXPECT_EQ(c.only_in_base, std::vector<std::string>{"lat send size 8"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"lat send size 16"});
}

TEST(Compare, RefusesMismatchedRunsInOneLine) {
  const compare::Run bw =
      ParseRun(RunJson(Mode::kBw,
                       {{Op::kSend, 8, false, LogNormal(500, 100, 3)}}, false),
               "new.json");
  EXPECT_EQ(ErrorOf(Lat("base.json", false), bw),
            "new.json: mode bw but base.json is lat");
  compare::Run other = Lat("new.json", false);
  for (Point& p : other.points) p.id += " (elsewhere)";
  EXPECT_EQ(ErrorOf(Lat("base.json", false), other),
            "no point in common: base.json has lat send size 8, lat write "
            "size 8; new.json has lat send size 8 (elsewhere), lat write size "
            "8 (elsewhere)");
}

TEST(Judge, ReportsEachCrossedThresholdOnce) {
  const Comparison c = Compare(Lat("a", true), Lat("b", true, 10000));
  Thresholds t;
  t.max_ratio = {{"p50", 1.1}, {"p99", 3.0}};
  t.max_ks = 0.5;
  t.max_wasserstein_ns = 20000;
  const std::vector<Crossing> x = Judge(c, t);
  // Both points: p50 (about 2 and 1.83) and KS; not p99 nor Wasserstein.
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[0].point, "lat send size 8");
  EXPECT_EQ(x[0].check, "p50 ratio");
  EXPECT_EQ(x[1].check, "KS");
  EXPECT_EQ(x[2].point, "lat write size 8");
  char want[80];
  std::snprintf(want, sizeof(want), "lat send size 8: p50 ratio %.4g > 1.1",
                c.points[0].Quantile("p50")->ratio);
  EXPECT_EQ(x[0].Line(), want);
  t = {};
  t.max_wasserstein_ns = 5000;
  std::snprintf(want, sizeof(want),
                "lat send size 8: Wasserstein %.0f ns > 5000 ns",
                c.points[0].wasserstein_ns);
  EXPECT_EQ(Judge(c, t)[0].Line(), want);
}

TEST(Judge, AnUndefinedRatioFailsClosed) {
  Comparison c = Compare(Lat("a", false), Lat("b", false));
  for (QuantileRatio& q : c.points[0].quantiles) q.ratio = std::nan("");
  const std::vector<Crossing> x = Judge(c, {{{"p50", 10.0}}, {}, {}});
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].Line(),
            "lat send size 8: p50 ratio undefined (BASE not above 0) > 10");
}

TEST(QuantileNames, AcceptMedianForP50) {
  EXPECT_EQ(CanonicalQuantile("median"), "p50");
  EXPECT_EQ(CanonicalQuantile("p999"), "p999");
  EXPECT_EQ(CanonicalQuantile("p42"), std::nullopt);
}

TEST(Format, TextAndJsonSayWhatWasCompared) {
  const Comparison c = Compare(Lat("a.json", true), Lat("b.json", true, 10000));
  Thresholds t;
  t.max_ratio["p50"] = 1.1;
  const std::vector<Crossing> x = Judge(c, t);
  std::ostringstream text;
  PrintComparison(c, text);
  PrintVerdict(c, t, x, text);
  const std::string s = text.str();
  EXPECT_NE(s.find("BASE a.json  NEW b.json"), std::string::npos) << s;
  EXPECT_NE(s.find("lat write size 8   samples 2000 / 2000   distances from "
                   "raw samples"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("FAIL: 2 threshold crossings in 2 of 2 points"),
            std::string::npos);
  const json j = json::parse(ComparisonJson(c, t, x).dump());
  EXPECT_EQ(j["pass"], false);
  EXPECT_EQ(j["points"][0]["distance"]["from"], "raw");
  EXPECT_EQ(j["points"][0]["quantiles"][4]["name"], "p50");
  EXPECT_EQ(j["crossings"].size(), 2u);
  EXPECT_EQ(j["thresholds"]["max_ratio"]["p50"], 1.1);
  std::ostringstream verdict;
  PrintVerdict(c, {}, {}, verdict);
  EXPECT_EQ(verdict.str(),
            "\nreport only: 2 points compared, no threshold given\n");
}

}  // namespace
}  // namespace verbsbench::compare
