#include "sweep/plot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plot/draw.h"
#include "plot/gnuplot.h"

namespace verbsemu::sweep {
namespace {

TEST(PlotTest, LatencyAndBandwidthDataAndScript) {
  Analysis a;
  const auto point = [](const char* lat, double ns, const char* bw,
                        double share, double median) {
    PointResult p;
    p.point = {lat, bw, ns, share};
    p.summary.n = 5;
    p.summary.median = median;
    p.summary.median_ci = {median - 1, median + 1};
    return p;
  };
  a.points = {point("0", 0, "100%", 1, 10), point("2us", 2000, "100%", 1, 14),
              point("0", 0, "50%", 0.5, 12),
              point("2us", 2000, "50%", 0.5, 16)};
  a.latency.ok = true;
  a.latency.slope = 2;
  a.latency.intercept = 10;
  const PlotFiles f = MakePlotFiles(a, "regex:\"t\"=(.*)");
  EXPECT_EQ(f.latency_data,
            "# latency_us median ci_lo ci_hi n\n0 10 9 11 5\n2 14 13 15 5\n");
  EXPECT_EQ(f.bandwidth_data,
            "# share_pct median ci_lo ci_hi n\n100 10 9 11 5\n50 12 11 13 5\n");
  EXPECT_EQ(f.pngs, (std::vector<std::string>{"latency.png", "bandwidth.png"}));
  EXPECT_NE(f.script.find("10 + 2 * x"), std::string::npos) << f.script;
  EXPECT_NE(f.script.find("regex:\\\"t\\\"=(.*)"), std::string::npos);
  a.points.resize(2);
  EXPECT_EQ(MakePlotFiles(a, "m").pngs,
            std::vector<std::string>{"latency.png"});
}

// The axes carry the metric's name and unit, the blocked robust line is
// drawn, and the 5% tolerance's interval is a shaded band.
TEST(PlotTest, LabelsTheQuantityAndShadesTheTolerance) {
  Analysis a;
  PointResult p;
  p.point = {"0", "100%", 0, 1};
  p.summary.n = 3;
  p.summary.median = 10;
  a.points = {p};
  a.label = LabelFor("regex:Loop time of ([0-9.]+)", "", "s");
  a.latency_blocked.ok = true;
  a.latency_blocked.slope = 0.5;
  a.latency_blocked.intercept = 10;
  a.latency_blocked.slope_ci = {0.4, 0.6};
  Tolerance t;
  t.ok = true;
  t.within = 0.05;
  t.value = 1;
  t.ci = {0.8, INFINITY};
  a.latency_tolerance = {t};
  const std::string script =
      MakePlotFiles(a, "regex:Loop time of ([0-9.]+)").script;
  EXPECT_NE(script.find("set ylabel \"Loop time (s) (median, 95% CI)\""),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("set title \"Loop time (s) against added latency\""),
            std::string::npos);
  EXPECT_NE(script.find("10 + 0.5 * x with lines lw 2 title \"blocked robust "
                        "fit: 0.5 s/us (95% CI 0.4 .. 0.6)\""),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("set object 1 rect from 0.8, graph 0 to graph 1"),
            std::string::npos)
      << script;
  a.latency_tolerance[0].extrapolated = true;  // beyond the sweep: no band
  EXPECT_EQ(MakePlotFiles(a, "m").script.find("set object 1 rect"),
            std::string::npos);
}

// gnuplot draws the script: both PNGs, a band and a metric whose name
// needs quoting.
TEST(PlotTest, GnuplotDrawsBothPlots) {
  if (!plot::GnuplotInstalled()) GTEST_SKIP() << "gnuplot is not installed";
  Analysis a;
  const auto point = [](double ns, double share, double median) {
    PointResult p;
    p.point = {"x", "y", ns, share};
    p.summary.n = 3;
    p.summary.median = median;
    p.summary.median_ci = {median - 1, median + 1};
    return p;
  };
  a.points = {point(0, 1, 10), point(2000, 1, 14), point(0, 0.5, 12)};
  a.label = LabelFor("regex:\"t\" \\=([0-9]+)", "", "s");
  a.latency.ok = true;
  a.latency.slope = 2;
  a.latency.intercept = 10;
  Tolerance t;
  t.ok = true;
  t.within = 0.05;
  t.value = 1;
  t.ci = {0.5, 1.5};
  a.latency_tolerance = {t};
  const PlotFiles f = MakePlotFiles(a, "regex:\"t\" \\=([0-9]+)");
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / "sweep \"plot\"";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "latency.dat") << f.latency_data;
  std::ofstream(dir / "bandwidth.dat") << f.bandwidth_data;
  std::ofstream(dir / "plot.gp") << f.script;
  // The script names its files relative to its directory, as sweep runs it.
  std::ofstream(dir / "run.gp")
      << "cd " << plot::Quote(dir.string()) << "\nload \"plot.gp\"\n";
  EXPECT_EQ(plot::Draw((dir / "run.gp").string()), "");
  for (const std::string& png : f.pngs) {
    EXPECT_GT(std::filesystem::file_size(dir / png), 1000u) << png;
  }
}

}  // namespace
}  // namespace verbsemu::sweep
