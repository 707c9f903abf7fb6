#include "emulate/delay_distribution.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emulate/internal/law_math.h"

namespace verbsemu::emulate {
namespace {

constexpr uint64_t kSeed = 20261123;

FileReader TextReader(std::string text) {
  return [text = std::move(text)](const std::string&,
                                  std::string*) -> std::optional<std::string> {
    return text;
  };
}

DelayDistribution MustParse(std::string_view text,
                            const FileReader& read = ReadWholeFile) {
  std::string why;
  const auto d = ParseDelayDistribution(text, &why, read);
  EXPECT_TRUE(d.has_value()) << text << ": " << why;
  return d.value_or(DelayDistribution());
}

std::vector<double> Draw(const DelayDistribution& d, uint64_t stream, int n) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out.push_back(
        d.Sample(RandomBits(kSeed, stream, static_cast<uint64_t>(i))));
  }
  return out;
}

double Average(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// A verbsbench lat --json report: a read result (rtt) first, which replay
// must skip, then the one-way one with three bins, listed out of order and
// with a gap between 4us and 5us.
const char* const kReport = R"({"tool": "verbsbench", "mode": "lat",
  "results": [
    {"op": "read", "size": 8, "metric": "rtt", "stats": {"histogram": [
        {"lo_ns": 100.0, "hi_ns": 200.0, "count": 7}]}},
    {"op": "send", "size": 8, "metric": "rtt/2", "stats": {"count": 10,
      "histogram": [
        {"lo_ns": 5000.0, "hi_ns": 6000.0, "count": 3, "frac": 0.3},
        {"lo_ns": 1000.0, "hi_ns": 2000.0, "count": 2, "frac": 0.2},
        {"lo_ns": 2000.0, "hi_ns": 4000.0, "count": 5, "frac": 0.5}]}}]})";

struct LawCase {
  const char* text;
  bool check_mean;  // finite variance, so the sample mean settles
};

constexpr std::array<LawCase, 10> kLaws = {{
    {"10us", true},
    {"normal(10us,2us)", true},
    {"normal(1us, 1us)", true},  // a sixth of the mass clamped to 0
    {"lognormal(10us,0.5)", true},
    {"lognormal(100ms,3)", false},  // a fifth of the mass clamped to 1 s
    {"uniform(5us,15us)", true},
    {"uniform(0,1s)", true},
    {"pareto(5us,2.5)", true},
    {"pareto(5us,0.5)", false},  // infinite mean but for the 1 s clamp
    {"replay:lat.json", true},
}};

TEST(DelayDistributionTest, SamplesFollowTheLaw) {
  for (size_t i = 0; i < kLaws.size(); ++i) {
    const DelayDistribution d = MustParse(kLaws[i].text, TextReader(kReport));
    const std::vector<double> samples = Draw(d, i, 100000);
    EXPECT_LT(KsDistance(samples, d), 0.01) << kLaws[i].text;
    if (kLaws[i].check_mean) {
      EXPECT_NEAR(Average(samples), d.Mean(), 0.01 * d.Mean()) << kLaws[i].text;
    }
    for (const double x : samples) {
      ASSERT_TRUE(x >= 0 && x <= kMaxDelayNs) << kLaws[i].text << " " << x;
    }
  }
}

// Mean() is the integral of the quantile function over (0, 1); a midpoint
// rule checks the closed forms, clamped tails included.
TEST(DelayDistributionTest, MeanIsTheIntegralOfTheQuantile) {
  for (const LawCase& law : kLaws) {
    const DelayDistribution d = MustParse(law.text, TextReader(kReport));
    constexpr int kSteps = 2000000;
    double sum = 0;
    for (int k = 0; k < kSteps; ++k) sum += d.Quantile((k + 0.5) / kSteps);
    EXPECT_NEAR(sum / kSteps, d.Mean(), 2e-4 * d.Mean()) << law.text;
  }
  EXPECT_NEAR(MustParse("normal(1us,1us)").Mean(), 1083.3154, 1e-3);
  EXPECT_NEAR(MustParse("uniform(5us,15us)").Mean(), 10000, 1e-9);
  EXPECT_NEAR(MustParse("pareto(5us,2.5)").Mean(), 5000 * 2.5 / 1.5, 1e-3);
}

TEST(DelayDistributionTest, QuantileInvertsTheCdf) {
  for (const LawCase& law : kLaws) {
    const DelayDistribution d = MustParse(law.text, TextReader(kReport));
    if (d.is_constant()) continue;
    for (const double u : {0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99}) {
      const double x = d.Quantile(u);
      if (x <= 0 || x >= kMaxDelayNs) continue;  // an atom: no inverse
      EXPECT_NEAR(d.Cdf(x), u, 1e-9) << law.text << " u=" << u;
      EXPECT_NEAR(d.Quantile(d.Cdf(x)), x, 1e-6 * x) << law.text;
    }
  }
}

TEST(DelayDistributionTest, DescribeParsesBackToTheSameLaw) {
  const std::array<std::pair<const char*, const char*>, 10> kCanonical = {{
      {"2us", "2us"},
      {"1500ns", "1.5us"},
      {"0", "0ns"},
      {"123.4567ns", "123.4567ns"},
      {"normal(10us, 2us)", "normal(10us,2us)"},
      {"lognormal(10000ns,0.50)", "lognormal(10us,0.5)"},
      {"uniform(0,15us)", "uniform(0ns,15us)"},
      {"pareto(0.005ms,2.5)", "pareto(5us,2.5)"},
      {"normal(0.1us,0.0000001ns)", "normal(100ns,0.0000001ns)"},
      {"pareto(1s,1000000)", "pareto(1000ms,1000000)"},
  }};
  for (const auto& [text, canonical] : kCanonical) {
    const DelayDistribution d = MustParse(text);
    EXPECT_EQ(d.Describe(), canonical);
    EXPECT_EQ(MustParse(d.Describe()), d) << text;
  }
  const DelayDistribution replay =
      MustParse("replay:lat.json", TextReader(kReport));
  const std::string described = replay.Describe();
  EXPECT_EQ(described,
            "replay:lat.json (one-way, send 8 B, 10 samples, mean 3.45us)");
  EXPECT_EQ(MustParse(described.substr(0, described.rfind(" (")),
                      TextReader(kReport)),
            replay);
  EXPECT_FALSE(MustParse("normal(10us,2us)") == MustParse("normal(10us,3us)"));
}

TEST(DelayDistributionTest, ReplayInterpolatesWithinBins) {
  const DelayDistribution d = MustParse("replay:lat.json", TextReader(kReport));
  EXPECT_EQ(d.family(), DelayDistribution::Family::kReplay);
  // Cumulative shares at the bin edges: 0.2 at 2us, 0.7 from 4us to 5us.
  EXPECT_NEAR(d.Quantile(0.2), 2000, 1e-6);
  EXPECT_NEAR(d.Quantile(0.7), 4000, 1e-6);
  EXPECT_NEAR(d.Quantile(1e-12), 1000, 1e-6);
  EXPECT_NEAR(d.Quantile(1 - 1e-12), 6000, 1e-6);
  EXPECT_NEAR(d.Quantile(0.5), 3200, 1e-6);
  EXPECT_DOUBLE_EQ(d.Cdf(999), 0);
  EXPECT_DOUBLE_EQ(d.Cdf(1500), 0.1);
  EXPECT_DOUBLE_EQ(d.Cdf(2000), 0.2);
  EXPECT_DOUBLE_EQ(d.Cdf(4500), 0.7);
  EXPECT_DOUBLE_EQ(d.Cdf(6000), 1);
  EXPECT_DOUBLE_EQ(d.Mean(), 3450);
}

TEST(DelayDistributionTest, ReadsTheReportVerbsbenchWrites) {
  // verbsbench/testdata/fuzz/report/lat.json, trimmed.
  const char* const kVerbsbench = R"({"tool": "verbsbench", "mode": "lat",
    "results": [{"op": "send", "size": 8, "inline": false, "iterations": 3,
    "metric": "rtt/2", "stats": {"count": 3, "min_ns": 1000.0,
    "histogram": [{"lo_ns": 1000.0, "hi_ns": 1100.0, "count": 3, "frac": 1.0,
    "pdf": 0.01, "cdf": 1.0}]}, "raw_ns": [1000.0, 1100.0]}]})";
  const DelayDistribution d =
      MustParse("replay:/tmp/lat.json", TextReader(kVerbsbench));
  EXPECT_DOUBLE_EQ(d.Mean(), 1050);
  EXPECT_EQ(d.Describe(),
            "replay:/tmp/lat.json (one-way, send 8 B, 3 samples, mean 1.05us)");
}

TEST(DelayDistributionTest, NormalClampsAtZero) {
  const DelayDistribution d = MustParse("normal(1us,1us)");
  EXPECT_NEAR(d.Cdf(0), 0.158655254, 1e-9);
  EXPECT_DOUBLE_EQ(d.CdfBelow(0), 0);
  EXPECT_DOUBLE_EQ(d.Cdf(-1), 0);
  EXPECT_DOUBLE_EQ(d.Quantile(0.1), 0);
  int zeros = 0;
  for (const double x : Draw(d, 99, 100000)) {
    ASSERT_GE(x, 0);
    zeros += x == 0;
  }
  EXPECT_NEAR(zeros / 100000.0, 0.158655, 0.005);
}

TEST(DelayDistributionTest, HeavyTailsClampAtOneSecond) {
  const DelayDistribution d = MustParse("pareto(5us,0.5)");
  EXPECT_NEAR(d.CdfBelow(kMaxDelayNs), 1 - std::sqrt(5000 / kMaxDelayNs),
              1e-12);
  EXPECT_DOUBLE_EQ(d.Cdf(kMaxDelayNs), 1);
  EXPECT_DOUBLE_EQ(d.Quantile(0.9999), kMaxDelayNs);
  // Far past the double range before the clamp: still finite.
  const DelayDistribution wide = MustParse("lognormal(1ns,1000000)");
  EXPECT_TRUE(std::isfinite(wide.Mean()));
  EXPECT_NEAR(wide.Mean(), 0.5 * kMaxDelayNs, 1e-3 * kMaxDelayNs);
}

TEST(DelayDistributionTest, ConstantIsTheDefault) {
  const DelayDistribution zero;
  EXPECT_TRUE(zero.is_constant());
  EXPECT_EQ(zero.Sample(12345), 0);
  EXPECT_EQ(DelayDistribution::Constant(2000).Sample(~uint64_t{0}), 2000);
  EXPECT_EQ(DelayDistribution::Constant(5e9).Mean(), kMaxDelayNs);
  EXPECT_EQ(DelayDistribution::Constant(-1).Mean(), 0);
  EXPECT_EQ(MustParse("2us"), DelayDistribution::Constant(2000));
}

TEST(KsDistanceTest, ExactOnSmallSamplesAndAtoms) {
  const DelayDistribution uniform = MustParse("uniform(0,4ns)");
  EXPECT_DOUBLE_EQ(KsDistance({3, 1, 2}, uniform), 0.25);
  const DelayDistribution ten = DelayDistribution::Constant(10);
  EXPECT_DOUBLE_EQ(KsDistance({10, 10, 10}, ten), 0);
  EXPECT_DOUBLE_EQ(KsDistance({11, 11}, ten), 1);
  EXPECT_DOUBLE_EQ(KsDistance({10, 11}, ten), 0.5);
  // The atom at 0 of a clamped normal is matched by samples at 0.
  const DelayDistribution clamped = MustParse("normal(1us,1us)");
  std::vector<double> at_zero(1000, 0.0);
  EXPECT_NEAR(KsDistance(at_zero, clamped), 1 - clamped.Cdf(0), 1e-12);
}

TEST(RandomBitsTest, IsAPureFunctionOfItsArguments) {
  EXPECT_EQ(RandomBits(1, 2, 3), RandomBits(1, 2, 3));
  EXPECT_NE(RandomBits(1, 2, 3), RandomBits(1, 2, 4));
  EXPECT_NE(RandomBits(1, 2, 3), RandomBits(1, 3, 3));
  EXPECT_NE(RandomBits(1, 2, 3), RandomBits(2, 2, 3));
  EXPECT_NE(RandomBits(0, 0, 0), RandomBits(0, 1, 0));
  EXPECT_NE(RandomBits(0, 0, 1), RandomBits(0, 1, 0));
  EXPECT_GT(UnitFromBits(0), 0);
  EXPECT_LT(UnitFromBits(~uint64_t{0}), 1);
}

TEST(RandomBitsTest, UnitIsUniform) {
  constexpr int kDraws = 1000000, kBuckets = 64;
  std::array<int, kBuckets> buckets{};
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double u =
        UnitFromBits(RandomBits(kSeed, 7, static_cast<uint64_t>(i)));
    sum += u;
    ++buckets[static_cast<size_t>(u * kBuckets)];
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.002);  // 7 standard errors
  const double expected = static_cast<double>(kDraws) / kBuckets;
  double chi_square = 0;
  for (const int count : buckets) {
    chi_square += (count - expected) * (count - expected) / expected;
  }
  // 63 degrees of freedom: mean 63, standard deviation 11.2.
  EXPECT_GT(chi_square, 25);
  EXPECT_LT(chi_square, 120);
}

TEST(NormalQuantileTest, InvertsPhiToMachinePrecision) {
  for (const double p : {1e-300, 1e-20, 1e-10, 1e-4, 0.02425, 0.0243, 0.3, 0.5,
                         0.7, 0.97575, 0.999, 1 - 1e-12}) {
    const double x = internal::NormalQuantile(p);
    // Compared in the smaller tail, where p has its full resolution.
    const double tail = p > 0.5 ? 1 - p : p;
    const double back = internal::NormalCdf(p > 0.5 ? -x : x);
    EXPECT_NEAR(back / tail, 1, 1e-9) << p;
  }
  EXPECT_DOUBLE_EQ(internal::NormalQuantile(0.5), 0);
  EXPECT_NEAR(internal::NormalQuantile(0.975), 1.959963984540054, 1e-13);
}

TEST(ParseDelayDistributionTest, RefusesWithAReason) {
  const std::vector<std::string> kBad = {
      "",
      "abc",
      "2",
      "-2us",
      "2s",
      "2us ",
      "normal",
      "normal(",
      "normal()",
      "normal(10us)",
      "normal(10us,2us,3us)",
      "normal(10us,)",
      "normal(10us,,2us)",
      "normal(10us ,2us)",
      "normal(10us,2us)x",
      "normal(10us,2us) ",
      "normal (10us,2us)",
      "gauss(1us,2us)",
      "(1us,2us)",
      "normal(nan,1us)",
      "normal(inf,1us)",
      "normal(1us,nan)",
      "normal(2s,1us)",
      "normal(1us,2s)",
      "normal(10us,0)",
      "normal(10us,0us)",
      "normal(-1us,1us)",
      "lognormal(10us,inf)",
      "lognormal(10us,nan)",
      "lognormal(10us,1e3)",
      "lognormal(10us,-1)",
      "lognormal(10us,1us)",
      "lognormal(0,0.5)",
      "lognormal(10us,0)",
      "lognormal(10us, 0.5 )",
      "uniform(5us,5us)",
      "uniform(15us,5us)",
      "uniform(0,2s)",
      "pareto(0,2)",
      "pareto(5us,0)",
      "pareto(5us,0.0)",
      "pareto(5us,x)",
      "pareto(5us,2.5.1)",
      "pareto(5us,1" + std::string(400, '0') + ")",
      "replay:",
      "replay:/no/such/verbsemu/file.json"};
  for (const std::string& bad : kBad) {
    std::string why;
    EXPECT_FALSE(ParseDelayDistribution(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  std::string why;
  EXPECT_FALSE(ParseDelayDistribution("normal(10us,0)", &why));
  EXPECT_EQ(why, "SD is 0: use a constant, e.g. 10us");
  EXPECT_FALSE(ParseDelayDistribution("normal(10us)", &why));
  EXPECT_EQ(why,
            "normal takes two parameters; write normal(MEAN,SD), e.g. "
            "normal(10us,2us)");
  EXPECT_FALSE(ParseDelayDistribution("2", &why));
  EXPECT_EQ(why,
            "no unit, such as 2us, 1500ns, 0.5ms, 1s, or a distribution "
            "such as normal(10us,2us)");
}

TEST(ParseDelayDistributionTest, RefusesBadReplayFilesWithAReason) {
  const auto report = [](const std::string& histogram) {
    return R"({"results": [{"metric": "rtt/2", "stats": {"histogram": )" +
           histogram + "}}]}";
  };
  for (const std::string& text :
       {std::string("not json"),
        std::string("[1, 2]"),
        std::string("{}"),
        std::string(R"({"results": 3})"),
        std::string(R"({"results": [{"metric": "rtt", "stats": {}}]})"),
        std::string(R"({"results": [{"metric": "rtt/2"}]})"),
        std::string(R"({"results": [{"metric": "rtt/2", "stats": 1}]})"),
        report("[]"),
        report("{}"),
        report("[1]"),
        report(R"([{"lo_ns": 1, "hi_ns": 2}])"),
        report(R"([{"lo_ns": 1, "hi_ns": "2", "count": 1}])"),
        report(R"([{"lo_ns": 2, "hi_ns": 2, "count": 1}])"),
        report(R"([{"lo_ns": -1, "hi_ns": 2, "count": 1}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 2, "count": -1}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 2, "count": 0}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 2e9, "count": 1}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 1e400, "count": 1}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 2, "count": 1e308},
                   {"lo_ns": 3, "hi_ns": 4, "count": 1e308}])"),
        report(R"([{"lo_ns": 1, "hi_ns": 5, "count": 1},
                   {"lo_ns": 3, "hi_ns": 6, "count": 1}])")}) {
    std::string why;
    EXPECT_FALSE(
        ParseDelayDistribution("replay:r.json", &why, TextReader(text)))
        << text;
    EXPECT_FALSE(why.empty()) << text;
  }
  std::string why;
  const FileReader failing = [](const std::string&, std::string*) {
    return std::optional<std::string>();
  };
  EXPECT_FALSE(ParseDelayDistribution("replay:r.json", &why, failing));
  EXPECT_NE(why.find("cannot read r.json"), std::string::npos) << why;
  EXPECT_FALSE(ParseDelayDistribution("replay:/no/such/file", &why));
  EXPECT_NE(why.find("cannot read /no/such/file: No such file"),
            std::string::npos)
      << why;
}

TEST(ParametricTest, BuildsWhatTheParserBuilds) {
  using Family = DelayDistribution::Family;
  const auto normal =
      DelayDistribution::Parametric(Family::kNormal, 10000, 2000);
  ASSERT_TRUE(normal);
  EXPECT_EQ(*normal, MustParse("normal(10us,2us)"));
  std::string why;
  EXPECT_FALSE(DelayDistribution::Parametric(Family::kReplay, 1, 2, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(DelayDistribution::Parametric(Family::kNormal, NAN, 2000, &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace verbsemu::emulate
