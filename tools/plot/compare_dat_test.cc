#include "tools/plot/compare_dat.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "verbsbench/compare/test_runs.h"

namespace verbsemu::plot {
namespace {

namespace cmp = verbsbench::compare;
using cmp::test_runs::LogNormal;

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CompareDat, WritesBothRunsOnTheSharedBins) {
  using verbsbench::Mode;
  using verbsbench::Op;
  const auto run = [](const char* label, double shift) {
    return cmp::ParseRun(
        cmp::test_runs::RunJson(
            Mode::kLat,
            {{Op::kSend, 8, false, LogNormal(10000, 500, 1, shift)}}, true),
        label);
  };
  const cmp::Comparison c = cmp::Compare(run("a", 0), run("b", 3000));
  const std::string dir = ::testing::TempDir() + "/compare_dat";
  WriteCompareDats(dir, c);
  const auto index = Lines(dir + "/compare.tsv");
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index[1].rfind(
                "lat_send_size_8\tcompare_lat_send_size_8.dat\t500\t500\t", 0),
            0u)
      << index[1];
  EXPECT_NE(index[1].find("\traw\tlat send size 8"), std::string::npos);
  const auto dat = Lines(dir + "/compare_lat_send_size_8.dat");
  ASSERT_EQ(dat.size(), c.points[0].shared.intervals() + 2);
  double area[2] = {0, 0}, cdf[2] = {0, 0};
  for (size_t i = 2; i < dat.size(); ++i) {
    std::istringstream row(dat[i]);
    double lo, hi, mid, pdf[2];
    row >> lo >> hi >> mid >> pdf[0] >> pdf[1] >> cdf[0] >> cdf[1];
    for (int k = 0; k < 2; ++k) area[k] += pdf[k] * (hi - lo);
  }
  EXPECT_NEAR(area[0], 1, 1e-6);
  EXPECT_NEAR(area[1], 1, 1e-6);
  EXPECT_NEAR(cdf[0], 1, 1e-9);
  EXPECT_NEAR(cdf[1], 1, 1e-9);
}

}  // namespace
}  // namespace verbsemu::plot
