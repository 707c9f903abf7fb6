#include "tools/plot/figures.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace verbsemu::plot {
namespace {

std::string Temp(const std::string& name, const std::string& text) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(t ? t : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ReadIndexTest, SkipsCommentsPadsShortRowsAndKeepsTheRestInTheLast) {
  const auto rows =
      ReadIndex(Temp("index.tsv", "# name\tfile\n\na\tb\tc\td\te\nshort\n"), 3);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (IndexRow{"a", "b", "c\td\te"}));
  EXPECT_EQ(rows[1], (IndexRow{"short", "", ""}));
  EXPECT_THROW(ReadIndex("/nonexistent/index.tsv", 3), std::runtime_error);
}

// From the first lo_ns (or a lower positive one) to the highest hi_ns over
// every file, 5% beyond each, with tics the axis can show; a first bin
// from 0 puts the left end three decades below the right one.
TEST(LogTimeAxisTest, SpansEveryFileWithTics) {
  const std::string a = Temp("a.dat", "# lo hi\n950 1000 x\n1000 1500 y\n");
  const std::string b = Temp("b.dat", "1200 2000 z\n");
  const Axis x = LogTimeAxis({a, b});
  EXPECT_TRUE(x.log);
  EXPECT_DOUBLE_EQ(*x.min, 950 / 1.05);
  EXPECT_DOUBLE_EQ(*x.max, 2000 * 1.05);
  ASSERT_FALSE(x.tics.empty());
  EXPECT_EQ(x.tics.front().label, "1000");
  EXPECT_EQ(x.tics.back().label, "2000");
  const Axis from_zero = LogTimeAxis({Temp("z.dat", "0 1000\n1000 2000\n")});
  EXPECT_DOUBLE_EQ(*from_zero.min, 2 / 1.05);
}

// A curve's measured points, its chosen fit, and the LogP member dashed
// unless the LogP member is the chosen fit.
TEST(CurveFigureTest, FitsAndTheDashedLogPMember) {
  const Curves c{"/d",
                 {{"rtt", "a", "a.dat", "a.fit.dat", "lop (lop, AICc)"},
                  {"rtt", "b", "b.dat", "b.fit.dat", "logp (logp, AICc)"},
                  {"rtt", "c", "c.dat", "-", ""},
                  {"overhead_send", "o", "o.dat", "-", ""}},
                 "min"};
  const auto f = CurveFigure(c, "/o/rtt.png", "t", "y", {"rtt"});
  ASSERT_TRUE(f.has_value());
  const std::string text = Render({.figures = {*f}});
  EXPECT_NE(text.find("\"/d/a.fit.dat\" using 1:($3/1000) with lines lw 1 dt 2 "
                      "lc 1 title \"LogP: a\""),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("LogP: b"), std::string::npos) << text;
  EXPECT_NE(text.find("title \"c (min; bars min..p99)\""), std::string::npos);
  EXPECT_EQ(text.find("o.dat"), std::string::npos);
  EXPECT_NE(text.find("set logscale y\n"), std::string::npos);
  EXPECT_FALSE(CurveFigure(c, "/o/x.png", "t", "y", {"none"}).has_value());
}

TEST(OverlayFigureTest, TitleAndKeysFromTheIndexRow) {
  const IndexRow row{"p",    "compare_p.dat", "10",  "20",
                     "0.25", "1500",          "raw", "lat send"};
  const std::string dat = Temp("compare_p.dat", "1 2 1.4 0.1 0.2 0.5 0.4\n");
  const std::string text =
      Render({.figures = {OverlayFigure(row, dat, "/o/p.png", "a.json",
                                        "b \"new\".json")}});
  EXPECT_NE(text.find("title \"lat send: KS 0.250, Wasserstein-1 1.500 us "
                      "(shared bins from raw)\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("using 1:5 with steps lw 2 lc rgb \"#c03030\" title "
                      "\"NEW b \\\"new\\\".json (20 samples)\""),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace verbsemu::plot
