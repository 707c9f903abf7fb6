// The loggp contract from both ends: a run as verbsbench writes it
// (verbsbench::ToJson, with its derived block) read by loggpfit's
// parser and analysis. If either side drifts (a key, the section, a
// formula), this fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/loggp/contract.h"
#include "models/loggp/formulas.h"
#include "models/loggp/loggp_data.h"
#include "models/loggp/loggp_fit.h"
#include "verbsbench/mode.h"
#include "verbsbench/result.h"

namespace verbsemu::fit {
namespace {

namespace vb = verbsbench;

// LogGP truth (ns, ns/B): o_s 400, o_r 150, L 1200, g 900, G 0.5.
constexpr double kOs = 400, kOr = 150, kL = 1200, kG = 900, kPerByte = 0.5;
constexpr int kN = 8;

vb::Recorder Constant(double v) {
  vb::Recorder rec(100, 0);
  for (int i = 0; i < 40; ++i) rec.Add(v);
  return rec;
}

nlohmann::json VerbsbenchRun() {
  vb::Result r;
  r.options.mode = vb::Mode::kLoggp;
  r.options = vb::Normalize(r.options);
  r.options.loggp_n = kN;
  for (size_t size : {1024, 2048, 4096, 8192}) {
    const double s = static_cast<double>(size);
    const double rtt = 2 * (kOs + kL + (s - 1) * kPerByte + kOr);
    const double gap = std::max(kOs, vb::loggp::GapModel(kG, kPerByte, s));
    vb::LoggpPoint pt;
    pt.size = size;
    pt.iterations = 40;
    pt.delay_ns = 3 * gap;
    pt.prtt_1_0 = Constant(rtt);
    pt.prtt_n_0 = Constant(rtt + (kN - 1) * gap);
    pt.prtt_n_d = Constant(rtt + (kN - 1) * (kOs + pt.delay_ns));
    pt.o_r = Constant(kOr);
    r.loggp.push_back(std::move(pt));
  }
  return vb::ToJson(r);
}

TEST(LoggpSchema, LoggpfitReadsWhatVerbsbenchWritesAndFindsTheModel) {
  const nlohmann::json doc = VerbsbenchRun();
  const LoggpRun run = ParseLoggp(doc, LoggpStat::kMedian);
  ASSERT_EQ(run.n, kN);
  ASSERT_EQ(run.points.size(), 4u);
  for (size_t i = 0; i < run.points.size(); ++i) {
    const nlohmann::json& written =
        doc[vb::loggp::kSection][vb::loggp::kPoints][i];
    const nlohmann::json& derived =
        written[vb::loggp::key::kDerived]["median_ns"];
    const LoggpPoint& read = run.points[i];
    EXPECT_EQ(read.size, written[vb::loggp::key::kSize].get<double>());
    EXPECT_EQ(read.delay, written[vb::loggp::key::kDelayNs].get<double>());
    EXPECT_DOUBLE_EQ(read.gap, derived[vb::loggp::key::kGapNs].get<double>());
    EXPECT_DOUBLE_EQ(read.o_s, derived[vb::loggp::key::kOsNs].get<double>());
    EXPECT_NEAR(read.o_s, kOs, 1e-6 * kOs);
  }
  const LoggpAnalysis a = AnalyzeLoggp(run);
  ASSERT_TRUE(a.identified()) << a.not_identified;
  ASSERT_EQ(a.segments.size(), 1u);
  EXPECT_NEAR(a.segments[0].big_g.value, kPerByte, 1e-6);
  EXPECT_NEAR(a.segments[0].g.value, kG, 1e-3);
  for (const LoggpSize& s : a.sizes) EXPECT_NEAR(s.latency, kL, 1e-3);
}

}  // namespace
}  // namespace verbsemu::fit
