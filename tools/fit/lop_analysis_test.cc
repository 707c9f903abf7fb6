#include "tools/fit/lop_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tools/fit/lop_models.h"

namespace verbsemu::fit {
namespace {

constexpr char kSample[] = "tools/fit/testdata/lop_rxe16.json";

const CurveFit& Curve(const LopAnalysis& a, const std::string& name) {
  for (const CurveFit& c : a.curves) {
    if (c.curve.name == name) return c;
  }
  ADD_FAILURE() << "no curve " << name;
  return a.curves.front();
}

TEST(LopAnalysisTest, FitsEveryCurveOfTheSample) {
  LopAnalysis a = Analyze(LoadLop(kSample), Stat::kMedian);
  ASSERT_EQ(a.curves.size(), 9u);
  for (const CurveFit& c : a.curves) {
    if (c.curve.kind == CurveKind::kLatency) {
      EXPECT_FALSE(c.fitted);
      continue;
    }
    EXPECT_TRUE(c.fitted) << c.curve.name << ": " << c.note;
    EXPECT_GT(c.fit.r2, 0.99) << c.curve.name;
    // Residuals at the ~0.5% noise level the sample was made with.
    for (std::size_t i = 0; i < c.p.size(); ++i) {
      EXPECT_LT(std::abs(c.y[i] - c.Eval(c.p[i])), 0.02 * c.y[i])
          << c.curve.name << " p=" << c.p[i];
    }
  }
  // Statistic choice matters: min-based fit is below the median one.
  LopAnalysis m = Analyze(LoadLop(kSample), Stat::kMin);
  EXPECT_LT(Curve(m, "rtt2_1n_send").Eval(8), Curve(a, "rtt2_1n_send").Eval(8));
}

TEST(LopAnalysisTest, DerivesLAndPredictionsPerThePaper) {
  LopAnalysis a = Analyze(LoadLop(kSample), Stat::kMedian);
  // 3 single rtt curves -> L with os_send_single; 1 list rtt curve -> L_list
  // with os_send_list.
  ASSERT_EQ(a.derived.size(), 4u);
  int singles = 0;
  for (const Derived& d : a.derived) {
    EXPECT_EQ(d.overhead, d.list ? "os_send_list" : "os_send_single");
    singles += d.list ? 0 : 1;
  }
  EXPECT_EQ(singles, 3);
  const Derived& d = a.derived[0];
  EXPECT_EQ(d.rtt, "rtt2_1n_send_inline");
  const CurveFit& rtt = Curve(a, "rtt2_1n_send_inline");
  const CurveFit& os = Curve(a, "os_send_single");
  ASSERT_EQ(d.points.size(), 16u);
  for (const DerivedPoint& pt : d.points) {
    const std::size_t i = static_cast<std::size_t>(pt.p) - 1;
    EXPECT_DOUBLE_EQ(pt.rtt2, rtt.y[i] / 2);
    EXPECT_DOUBLE_EQ(pt.l, rtt.y[i] / 2 - (os.y[i] + os.y[0]));
    EXPECT_DOUBLE_EQ(pt.t_pred, os.y[i] + pt.p * pt.l);
    const double l_fit = rtt.Eval(pt.p) / 2 - (os.Eval(pt.p) + os.Eval(1));
    EXPECT_NEAR(pt.l_fit, l_fit, 1e-9);
    EXPECT_NEAR(pt.t_pred_fit, os.Eval(pt.p) + pt.p * l_fit, 1e-9);
  }
  const Derived& dl = a.derived[3];
  EXPECT_EQ(dl.rtt, "rtt2_1n_send_inline_list");
  ASSERT_TRUE(dl.list);
  const CurveFit& rl = Curve(a, "rtt2_1n_send_inline_list");
  const CurveFit& ol = Curve(a, "os_send_list");
  const DerivedPoint& p5 = dl.points[4];
  EXPECT_DOUBLE_EQ(p5.l, rl.y[4] / 2 - (5 * ol.y[4] + ol.y[0]));
  EXPECT_DOUBLE_EQ(p5.t_pred, 5 * ol.y[4] + 5 * p5.l);
}

TEST(LopAnalysisTest, PredictsBeyondTheMeasuredRange) {
  LopAnalysis a = Analyze(LoadLop(kSample), Stat::kMedian, 32);
  const CurveFit& rtt = Curve(a, "rtt2_1n_send_inline");
  const CurveFit& os = Curve(a, "os_send_single");
  ASSERT_EQ(a.derived[0].points.size(), 32u);
  const DerivedPoint& pt = a.derived[0].points[31];
  EXPECT_EQ(pt.p, 32);
  EXPECT_TRUE(std::isnan(pt.l));
  EXPECT_TRUE(std::isnan(pt.t_pred));
  const double l_fit = rtt.Eval(32) / 2 - (os.Eval(32) + os.Eval(1));
  EXPECT_NEAR(pt.l_fit, l_fit, 1e-9);
  EXPECT_NEAR(pt.t_pred_fit, os.Eval(32) + 32 * l_fit, 1e-9);
  // Without predict_max the rows stop at the last measured p.
  EXPECT_EQ(Analyze(LoadLop(kSample), Stat::kMedian).derived[0].points.size(),
            16u);
}

TEST(LopAnalysisTest, ListLatencyFromSingleRttWhenNoListRtt) {
  LopRun run = LoadLop(kSample);
  std::erase_if(run.curves, [](const LopCurve& c) {
    return c.name == "rtt2_1n_send_inline_list";
  });
  LopAnalysis a = Analyze(run, Stat::kMedian);
  // Each of the 3 single rtt curves now yields L and L_list.
  ASSERT_EQ(a.derived.size(), 6u);
  EXPECT_TRUE(a.derived[1].list);
  EXPECT_FALSE(a.derived[1].note.empty());
}

TEST(LopAnalysisTest, FittedOs1WhenTheOverheadCurveLacksP1) {
  LopRun run = LoadLop(kSample);
  for (LopCurve& c : run.curves) {
    if (c.name == "os_send_single") c.points.erase(c.points.begin());
  }
  LopAnalysis a = Analyze(run, Stat::kMedian);
  const Derived& d = a.derived[0];
  const CurveFit& os = Curve(a, "os_send_single");
  ASSERT_TRUE(os.fitted);
  EXPECT_NE(d.note.find("o_s(1) not measured"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.points[3].os_1, os.Eval(1));
  EXPECT_DOUBLE_EQ(d.points[3].l,
                   d.points[3].rtt2 - (d.points[3].os_p + os.Eval(1)));
  // p = 1 has no overhead point at all: measured L there is unknown.
  EXPECT_TRUE(std::isnan(d.points[0].l));
}

TEST(LopAnalysisTest, TooFewPointsIsNotFitted) {
  LopRun run = LoadLop(kSample);
  run.curves[0].points.resize(4);
  LopAnalysis a = Analyze(run, Stat::kMedian);
  EXPECT_FALSE(a.curves[0].fitted);
  EXPECT_EQ(a.curves[0].note,
            "not fitted: 4 points, the model has 6 parameters");
  EXPECT_TRUE(std::isnan(a.derived[0].points[0].l_fit));
  EXPECT_FALSE(std::isnan(a.derived[0].points[0].l));
}

TEST(LopAnalysisTest, JsonAndTextCarryTheFit) {
  LopAnalysis a = Analyze(LoadLop(kSample), Stat::kMedian);
  nlohmann::json j = ToJson(a);
  EXPECT_EQ(j["stat"], "median");
  ASSERT_EQ(j["curves"].size(), 9u);
  EXPECT_EQ(j["curves"][0]["model"], "t_rtt");
  EXPECT_EQ(j["curves"][0]["lambda"].size(), 6u);
  EXPECT_EQ(j["curves"][4]["lambda"].size(), 3u);
  EXPECT_GT(j["curves"][0]["r2"].get<double>(), 0.99);
  EXPECT_EQ(j["curves"][0]["points"].size(), 16u);
  EXPECT_EQ(j["derived"][3]["quantity"], "L_list");
  // Round trip: the dump parses back to the same document.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);

  std::ostringstream text;
  PrintText(text, a);
  EXPECT_NE(text.str().find("curve rtt2_1n_send_inline"), std::string::npos);
  EXPECT_NE(text.str().find("R^2="), std::string::npos);
  EXPECT_NE(text.str().find("L_list(p) from rtt2_1n_send_inline_list"),
            std::string::npos);
}

TEST(LopAnalysisTest, WritesGnuplotFiles) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::filesystem::path dir = std::filesystem::path(tmp) / "gp";
  LopAnalysis a = Analyze(LoadLop(kSample), Stat::kMedian);
  WriteGnuplotDir(dir.string(), a);
  std::ifstream index(dir / "curves.tsv");
  std::string line;
  int rows = 0;
  while (std::getline(index, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++rows;
  }
  EXPECT_EQ(rows, 9 + 4);
  std::ifstream fit(dir / "rtt2_1n_send_inline.fit.dat");
  int fit_rows = 0;
  while (std::getline(fit, line)) fit_rows += line[0] != '#';
  EXPECT_EQ(fit_rows, 201);
  EXPECT_TRUE(std::filesystem::exists(
      dir / "derived_Llist_rtt2_1n_send_inline_list.dat"));
  EXPECT_FALSE(std::filesystem::exists(dir / "L_1n_send_inline.fit.dat"));
  EXPECT_THROW(WriteGnuplotDir("/proc/forbidden/dir", a), LopInputError);
}

}  // namespace
}  // namespace verbsemu::fit
