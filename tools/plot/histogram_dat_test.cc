#include "tools/plot/histogram_dat.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace verbsemu::plot {
namespace {

using nlohmann::json;

json Load(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return json::parse(buf.str());
}

TEST(HistogramDatTest, FindsEveryHistogramOfALatRun) {
  const auto hists = FindHistograms(Load("tools/plot/testdata/lat_rxe.json"));
  ASSERT_EQ(hists.size(), 3u);
  EXPECT_EQ(hists[0].name, "results_0_stats");
  EXPECT_EQ(hists[0].path, "/results/0/stats");
  EXPECT_EQ(hists[0].label, "results/0/stats (op=send size=8 inline=true)");
  EXPECT_EQ(hists[1].name, "results_1_stats");
  EXPECT_EQ(hists[2].name, "timer_stats");
  EXPECT_EQ(hists[0].total, 5000u);
  EXPECT_EQ(hists[2].total, 3000u);
  // Bins sorted, the CDF ends at 1.
  for (const auto& h : hists) {
    for (std::size_t i = 1; i < h.bins.size(); ++i) {
      EXPECT_LT(h.bins[i - 1].lo_ns, h.bins[i].lo_ns);
      EXPECT_LE(h.bins[i - 1].cdf, h.bins[i].cdf);
    }
    EXPECT_NEAR(h.bins.back().cdf, 1.0, 1e-6);
  }
}

TEST(HistogramDatTest, ComputesMissingPdfAndCdf) {
  json doc = json::parse(R"({"stats":{"histogram":[
      {"lo_ns":20,"hi_ns":40,"count":1},
      {"lo_ns":10,"hi_ns":20,"count":3}]}})");
  const auto hists = FindHistograms(doc);
  ASSERT_EQ(hists.size(), 1u);
  ASSERT_EQ(hists[0].bins.size(), 2u);
  EXPECT_EQ(hists[0].bins[0].lo_ns, 10);
  EXPECT_DOUBLE_EQ(hists[0].bins[0].pdf, 0.75);
  EXPECT_DOUBLE_EQ(hists[0].bins[0].cdf, 0.75);
  EXPECT_DOUBLE_EQ(hists[0].bins[1].cdf, 1.0);
}

TEST(HistogramDatTest, RejectsMalformedBins) {
  EXPECT_THROW(
      FindHistograms(json::parse(R"({"s":{"histogram":[{"lo_ns":1}]}})")),
      std::runtime_error);
  EXPECT_THROW(
      FindHistograms(json::parse(
          R"({"s":{"histogram":[{"lo_ns":1,"hi_ns":2,"count":"x"}]}})")),
      std::runtime_error);
  EXPECT_TRUE(FindHistograms(json::parse(R"({"lop":{"curves":[]}})")).empty());
}

// Bad JSON is one line naming the file, without nlohmann's prefix.
TEST(HistogramDatTest, ParseRunRefusesBadJsonInOneLine) {
  EXPECT_EQ(ParseRun("{\"a\": 1}", "x.json")["a"], 1);
  try {
    ParseRun("{\"a\":", "x.json");
    FAIL() << "bad JSON parsed";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("'x.json' is not valid JSON: ", 0), 0u) << what;
    EXPECT_EQ(what.find("[json.exception"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(HistogramDatTest, WritesDatFiles) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::filesystem::path dir = std::filesystem::path(tmp) / "h";
  const auto hists = FindHistograms(Load("tools/plot/testdata/lat_rxe.json"));
  WriteHistogramDats(dir.string(), hists);
  std::ifstream dat(dir / "hist_timer_stats.dat");
  std::string line;
  std::size_t rows = 0;
  double last_cdf = 0;
  while (std::getline(dat, line)) {
    if (line[0] == '#') continue;
    ++rows;
    std::istringstream ls(line);
    double lo, hi, mid, count, pdf;
    ls >> lo >> hi >> mid >> count >> pdf >> last_cdf;
    EXPECT_GT(mid, lo);
    EXPECT_LT(mid, hi);
  }
  EXPECT_EQ(rows, hists[2].bins.size());
  EXPECT_NEAR(last_cdf, 1.0, 1e-6);
  EXPECT_TRUE(std::filesystem::exists(dir / "histograms.tsv"));
}

}  // namespace
}  // namespace verbsemu::plot
