#include "sweep/plot.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace verbsemu::sweep
