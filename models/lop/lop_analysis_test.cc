#include "models/lop/lop_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/lop/lop_report.h"

namespace verbsemu::fit {
namespace {

// Per-peer t_rtt (ns) of LoP's shape and overheads of t_ov's.
double TrueRtt(double p) {
  return 20000 / (0.5 + p) + 9000 - 40 * std::exp(0.08 * p);
}
double TrueOs(double p) { return 1500 + 400 / (p - 0.2); }
double TrueOsList(double p) { return 900 + 600 / (p + 0.5); }

LopCurve Curve(const std::string& name, CurveKind kind, bool list, int n,
               double (*f)(double)) {
  LopCurve c;
  c.name = name;
  c.kind = kind;
  c.op = "send";
  c.is_inline = true;
  c.list = list;
  if (kind == CurveKind::kOverhead) c.side = "send";
  for (int p = 1; p <= n; ++p) {
    LopPoint pt;
    pt.p = p;
    pt.min_ns = pt.median_ns = pt.mean_ns = f(p);
    c.points.push_back(pt);
  }
  return c;
}

LopRun SyntheticRun(int n) {
  LopRun run;
  run.curves = {
      Curve("rtt_1n_send_inline", CurveKind::kRtt, false, n, TrueRtt),
      Curve("os_send_single_inline", CurveKind::kOverhead, false, n, TrueOs),
      Curve("os_send_list_inline", CurveKind::kOverhead, true, n, TrueOsList),
  };
  return run;
}

TEST(LopAnalysis, FitsTheFamiliesAndDerivesPerThePaper) {
  const LopAnalysis a = Analyze(SyntheticRun(16));
  ASSERT_EQ(a.curves.size(), 3u);
  for (const CurveFit& c : a.curves) {
    ASSERT_TRUE(c.fitted()) << c.curve.name << ": " << c.note;
    EXPECT_EQ(c.family.Chosen()->spec->name, "lop") << c.curve.name;
  }
  ASSERT_EQ(a.derived.size(), 1u);  // no list rtt curve: no L_list
  const Derived& d = a.derived[0];
  EXPECT_EQ(d.rtt, "rtt_1n_send_inline");
  EXPECT_EQ(d.overhead, "os_send_single_inline");
  const DerivedPoint& pt = d.points[2];  // p = 3
  // L(p) = t_rtt(p)/2 - (o_s(p) + o_s(1)); t_1:n = o(n) + n L(n)
  const double l = TrueRtt(3) / 2 - (TrueOs(3) + TrueOs(1));
  EXPECT_NEAR(pt.l, l, 1e-9 * std::abs(l));
  EXPECT_NEAR(pt.t_pred, TrueOs(3) + 3 * l, 1e-6);
  // Exact data: the fits predict it.
  EXPECT_LT(d.MaxFitError(), 0.005);
  EXPECT_TRUE(std::isfinite(pt.t_pred_logp));
}

TEST(LopAnalysis, AListRttCurveGivesLList) {
  LopRun run = SyntheticRun(10);
  run.curves.push_back(
      Curve("rtt_1n_send_inline_list", CurveKind::kRtt, true, 10, TrueRtt));
  const LopAnalysis a = Analyze(run);
  ASSERT_EQ(a.derived.size(), 2u);
  const Derived& d = a.derived[1];
  EXPECT_TRUE(d.list);
  EXPECT_EQ(d.overhead, "os_send_list_inline");
  // L_list(p) = t_rtt(p)/2 - (p o_s_list(p) + o_s(1)), o_s(1) of single posts
  EXPECT_NEAR(d.points[3].l, TrueRtt(4) / 2 - (4 * TrueOsList(4) + TrueOs(1)),
              1e-6);
}

TEST(LopAnalysis, TooFewPointsAreNotFitted) {
  const LopAnalysis a = Analyze(SyntheticRun(2));
  EXPECT_FALSE(a.curves[0].fitted());
  EXPECT_EQ(a.curves[0].note,
            "not fitted: 2 points leave no degree of freedom");
  EXPECT_TRUE(std::isnan(a.derived[0].points[0].l_fit));
  EXPECT_FALSE(std::isnan(a.derived[0].points[0].l));
}

AnalysisOptions Forced(const std::string& rtt, const std::string& ov) {
  AnalysisOptions o;
  o.rtt_model = rtt;
  o.overhead_model = ov;
  return o;
}

TEST(LopAnalysis, ForcedModels) {
  const LopAnalysis a = Analyze(SyntheticRun(12), Forced("logp", ""));
  EXPECT_EQ(a.curves[0].family.Chosen()->spec->name, "logp");
  EXPECT_THROW(Analyze(SyntheticRun(12), Forced("cubic", "")), LopInputError);
  EXPECT_THROW(Analyze(SyntheticRun(12), Forced("", "logp")), LopInputError);
}

TEST(LopReport, JsonAndTextCarryTheFits) {
  const LopAnalysis a = Analyze(SyntheticRun(16));
  const nlohmann::json j = ToJson(a);
  EXPECT_EQ(j["stat"], "median");
  EXPECT_EQ(j["weights"], "relative");
  ASSERT_EQ(j["curves"].size(), 3u);
  const nlohmann::json& rtt = j["curves"][0];
  EXPECT_EQ(rtt["function"], "t_rtt");
  EXPECT_EQ(rtt["chosen"], "lop");
  EXPECT_EQ(rtt["models"].size(), 3u);
  EXPECT_EQ(rtt["models"][2]["params"].size(), 5u);
  EXPECT_TRUE(rtt["models"][2]["params"]["l5"]["identified"].get<bool>());
  EXPECT_EQ(j["derived"][0]["quantity"], "L");
  EXPECT_LT(j["derived"][0]["max_fit_error"].get<double>(), 0.005);
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);

  std::ostringstream text;
  PrintText(text, a);
  EXPECT_NE(text.str().find("curve rtt_1n_send_inline"), std::string::npos);
  EXPECT_NE(text.str().find("* lop"), std::string::npos);
  EXPECT_NE(text.str().find("(95%; se"), std::string::npos);
  EXPECT_NE(text.str().find("largest fit error"), std::string::npos);
}

TEST(LopReport, WritesGnuplotFiles) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::filesystem::path dir = std::filesystem::path(tmp) / "gp";
  const LopAnalysis a = Analyze(SyntheticRun(16));
  WriteGnuplotDir(dir.string(), a);
  std::ifstream index(dir / "curves.tsv");
  std::string line;
  int rows = 0;
  while (std::getline(index, line)) rows += !line.empty() && line[0] != '#';
  EXPECT_EQ(rows, 3 + 1);
  std::ifstream fit(dir / "rtt_1n_send_inline.fit.dat");
  int fit_rows = 0;
  while (std::getline(fit, line)) fit_rows += line[0] != '#';
  EXPECT_EQ(fit_rows, 201);
  EXPECT_TRUE(
      std::filesystem::exists(dir / "derived_L_rtt_1n_send_inline.dat"));
  EXPECT_THROW(WriteGnuplotDir("/proc/forbidden/dir", a), LopInputError);
}

}  // namespace
}  // namespace verbsemu::fit
