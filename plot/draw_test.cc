#include "plot/draw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plot/gnuplot.h"

namespace verbsemu::plot {
namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(t ? t : "/tmp") / "draw_test";
  fs::create_directories(dir);
  return dir;
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// What the writer renders, gnuplot draws: a log axis, a band, error bars,
// a function and inline data, in two stacked panels, under a path and
// title that need quoting.
TEST(DrawTest, GnuplotDrawsWhatTheWriterRenders) {
  if (!GnuplotInstalled()) GTEST_SKIP() << "gnuplot is not installed here";
  const fs::path dir = TempDir() / "a \"quoted\" dir";
  fs::create_directories(dir);
  WriteText(dir / "d.dat", "# x y lo hi\n1 2 1.5 2.5\n10 3 2.5 3.5\n");
  Panel top;
  top.x.log = true;
  top.x.tics = LogTics(0.9, 11);
  top.bands = {
      {.from = 2, .to = INFINITY, .line_at = 3, .label = "band \\ \"x\""}};
  top.series = {
      Series::File((dir / "d.dat").string(), {Col(1), Col(2), Col(3), Col(4)},
                   {.style = Style::kYErrorBars, .point = 7, .color = 1},
                   "a \"b\""),
      Series::Function("2 + 0.1 * x", {.width = 2, .dash = 2, .color = 2})};
  Panel bottom;
  bottom.series = {
      Series::Block("d", {Col(1), Col(2)}, {.style = Style::kSteps})};
  Script s;
  s.blocks = {{"d", "1 1\n2 4\n"}};
  const fs::path png = dir / "o \\ ut.png";
  s.figures = {{png.string(), "t \"1\"", {top, bottom}}};
  WriteText(dir / "p.gp", Render(s));
  EXPECT_EQ(Draw((dir / "p.gp").string()), "");
  EXPECT_GT(fs::file_size(png), 1000u);
  EXPECT_FALSE(fs::exists(dir / "p.gp.log"));
}

TEST(DrawTest, AFailureIsOneLineWithGnuplotsMessage) {
  if (!GnuplotInstalled()) GTEST_SKIP() << "gnuplot is not installed here";
  const fs::path gp = TempDir() / "bad.gp";
  WriteText(gp, "set nonsense\n");
  const std::string why = Draw(gp.string());
  EXPECT_EQ(why.rfind("gnuplot failed on " + gp.string() + ": ", 0), 0u) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_TRUE(fs::exists(gp.string() + ".log"));
}

}  // namespace
}  // namespace verbsemu::plot
