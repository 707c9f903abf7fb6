#include "plot/gnuplot.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verbsemu::plot {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Panel OnePanel() {
  Panel p;
  p.series = {Series::File("a.dat", {Col(1), Col(2)}, {})};
  return p;
}

std::string RenderPanel(const Panel& p) {
  Script s;
  s.figures = {{"out.png", "", {p}}};
  return Render(s);
}

TEST(QuoteTest, EscapesQuotesAndBackslashesAndDropsControls) {
  EXPECT_EQ(Quote("plain"), "\"plain\"");
  EXPECT_EQ(Quote(R"(say "hi" \o/)"), R"("say \"hi\" \\o/")");
  EXPECT_EQ(Quote("two\nlines\t"), "\"twolines\"");
  EXPECT_EQ(Quote("ends in \\"), R"("ends in \\")");
  EXPECT_EQ(Quote(""), "\"\"");
}

// A title and a path are quoted once where they are written, whatever
// they hold; a comment cannot continue onto the next line.
TEST(RenderTest, QuotesTitlesPathsAndLabels) {
  Panel p = OnePanel();
  p.title = R"(t "1" \ 2)";
  p.x.label = "x [us]";
  p.series[0] = Series::File(R"(/tmp/my "runs"/a.dat)", {Col(1), Div(2, 1000)},
                             {}, R"(run "A")");
  Script s;
  s.comments = {"metric: " + Quote("a\\")};
  s.figures = {{"/tmp/o\"ut.png", "", {p}}};
  const std::string text = Render(s);
  EXPECT_TRUE(Has(text, "# metric: \"a\\\\\"\n")) << text;
  EXPECT_TRUE(Has(text, R"(set title "t \"1\" \\ 2")")) << text;
  EXPECT_TRUE(Has(text, R"(set output "/tmp/o\"ut.png")")) << text;
  EXPECT_TRUE(Has(text, "set xlabel \"x [us]\"\n")) << text;
  EXPECT_TRUE(Has(text, R"(plot "/tmp/my \"runs\"/a.dat" using 1:($2/1000) )"
                        R"(with lines title "run \"A\"")"))
      << text;
}

TEST(RenderTest, LogAxisRangeAndTics) {
  Panel p = OnePanel();
  p.x.log = true;
  p.x.min = 10;
  p.x.tics = {{"10", 10}, {"20", 20}};
  p.y.max = 1.02;
  const std::string text = RenderPanel(p);
  EXPECT_TRUE(Has(text, "set logscale x\n")) << text;
  EXPECT_TRUE(Has(text, "set xrange [10:*]\n")) << text;
  EXPECT_TRUE(Has(text, "set xtics (\"10\" 10, \"20\" 20)\n")) << text;
  EXPECT_TRUE(Has(text, "unset logscale y\n")) << text;
  EXPECT_TRUE(Has(text, "set yrange [*:1.02]\n")) << text;
  EXPECT_TRUE(Has(text, "set ytics autofreq\n")) << text;
}

TEST(LogTicsTest, OneTwoFiveOverWideRangesEveryDigitOverNarrowOnes) {
  std::vector<std::string> labels;
  for (const Tic& t : LogTics(900, 2500)) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"900", "1000", "1500", "2000"}));
  labels.clear();
  for (const Tic& t : LogTics(0.5, 60)) labels.push_back(t.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"0.5", "1", "2", "5", "10", "20", "50"}));
  EXPECT_TRUE(LogTics(0, 10).empty());
}

// The band is shaded behind the data, open to the right edge when its
// end is infinite, with its line and label; all three are taken back
// after the plot, so the next panel does not inherit them.
TEST(RenderTest, BandToTheEdgeWithLineAndLabel) {
  Panel p = OnePanel();
  p.bands = {{.from = 0.8, .to = INFINITY, .line_at = 1, .label = "within 5%"}};
  const std::string text = RenderPanel(p);
  EXPECT_TRUE(Has(text,
                  "set object 1 rect from 0.8, graph 0 to graph 1, graph 1 "
                  "behind fc rgb \"#dbe7f3\" fs solid 1.0 noborder\n"))
      << text;
  EXPECT_TRUE(Has(text, "set arrow 1 from 1, graph 0 to 1, graph 1 nohead"));
  EXPECT_TRUE(Has(text, "set label 1 \"within 5%\" at 1, graph 0.95"));
  EXPECT_LT(text.find("set object 1"), text.find("plot "));
  EXPECT_GT(text.find("unset object 1"), text.find("plot "));
  p.bands[0].to = 2;
  EXPECT_TRUE(Has(RenderPanel(p), "rect from 0.8, graph 0 to 2, graph 1"));
}

TEST(RenderTest, LooksErrorBarsFunctionsAndInlineData) {
  Panel p = OnePanel();
  Look bars{
      .style = Style::kYErrorBars, .point = 7, .point_size = 0.6, .color = 2};
  Look dashed{.width = 1, .dash = 2, .color = 2};
  Look boxes{.style = Style::kBoxXYErrorBars, .rgb = "#3060c0", .fill = 0.5};
  p.series = {
      Series::Block("pts", {Col(1), Col(2), Col(3), Col(4)}, bars),
      Series::Function("10 + 2 * x", dashed, "fit"),
      Series::File("h.dat",
                   {Col(3), Div(5, 2), Col(1), Col(2), Const(0), Col(5)},
                   boxes)};
  Script s;
  s.blocks = {{"pts", "1 2 1.5 2.5\n2 3 2.5 3.5"}};
  s.figures = {{"o.png", "", {p}}};
  const std::string text = Render(s);
  EXPECT_TRUE(Has(text, "$pts << EOD\n1 2 1.5 2.5\n2 3 2.5 3.5\nEOD\n"));
  EXPECT_TRUE(Has(text,
                  "plot $pts using 1:2:3:4 with yerrorbars pt 7 ps 0.6 "
                  "lc 2 notitle, \\\n"))
      << text;
  EXPECT_TRUE(Has(text,
                  "     10 + 2 * x with lines lw 1 dt 2 lc 2 title "
                  "\"fit\", \\\n"))
      << text;
  EXPECT_TRUE(Has(text,
                  "\"h.dat\" using 3:($5/2):1:2:(0):5 with boxxyerror "
                  "lc rgb \"#3060c0\" fs solid 0.5 border -1 notitle\n"))
      << text;
}

// Stacked panels share one output and title; each states its own ranges,
// so the second does not inherit the first's.
TEST(RenderTest, MultiplotPanelsStateEverySetting) {
  Panel top = OnePanel(), bottom = OnePanel();
  top.y.min = 0;
  top.key = {.place = KeyPlace::kBelow, .font_size = 9};
  bottom.grid = false;
  Script s;
  s.terminal = {.width = 900, .height = 600, .font = "sans,10"};
  s.figures = {{"two.png", "A \"B\"", {top, bottom}}};
  const std::string text = Render(s);
  EXPECT_TRUE(Has(text,
                  "set terminal pngcairo size 900,600 noenhanced font "
                  "\"sans,10\"\n"));
  EXPECT_TRUE(Has(text, "set multiplot layout 2,1 title \"A \\\"B\\\"\"\n"));
  EXPECT_TRUE(Has(text, "set key below font \",9\"\n")) << text;
  const size_t second = text.find("plot ") + 1;
  EXPECT_TRUE(Has(text.substr(second), "set yrange [*:*]\n")) << text;
  EXPECT_TRUE(Has(text.substr(second), "unset grid\n")) << text;
  EXPECT_TRUE(Has(text, "unset multiplot\nunset output\n")) << text;
}

}  // namespace
}  // namespace verbsemu::plot
