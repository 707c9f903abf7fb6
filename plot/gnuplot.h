// The one gnuplot script writer: a script is data (terminal, figures,
// panels, axes, series, bands), and Render turns it into gnuplot's text,
// quoting every title, label and path one way (Quote). Each panel states
// all of its settings, so panels and figures of one script never inherit
// one another's ranges, scales or labels.
#ifndef VERBSEMU_PLOT_GNUPLOT_H_
#define VERBSEMU_PLOT_GNUPLOT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::plot {

// `s` as one gnuplot string: in double quotes, '\' and '"' escaped, control
// characters (a newline, a tab) dropped.
std::string Quote(std::string_view s);

// `v` as the script writes a coordinate: %.9g.
std::string Number(double v);

// Columns of a `using`: column n ("2"), column n divided by d ("($2/1000)"),
// a constant ("(0)").
std::string Col(int n);
std::string Div(int n, double d);
std::string Const(double v);

struct Tic {
  std::string label;
  double at = 0;
};

// Tics for a log axis from lo to hi, which may span too little for
// gnuplot's decades: 1, 1.5, 2, 3, ... 9 times each power of ten, or only
// 1, 2 and 5 when hi/lo exceeds 30; those within [lo, hi], labelled %g.
std::vector<Tic> LogTics(double lo, double hi);

struct Axis {
  std::string label{};                 // "" for none
  bool log = false;                    // a log scale (base 10)
  std::optional<double> min{}, max{};  // unset: gnuplot chooses
  std::vector<Tic> tics{};             // empty: gnuplot's own
};

enum class Style { kLines, kSteps, kPoints, kYErrorBars, kBoxXYErrorBars };

// How a series is drawn; a zero or empty field is left to gnuplot.
struct Look {
  Style style = Style::kLines;
  double width = 0;       // lw
  int dash = 0;           // dt
  int point = 0;          // pt
  double point_size = 0;  // ps
  int color = 0;          // lc N
  std::string rgb{};      // lc rgb "#3060c0" (instead of color)
  double fill = 0;        // fs solid FILL border -1 (boxes)
};

// One curve: from a data file, from a named block of inline data in the
// script (Script::blocks), or a function of x.
struct Series {
  enum class From { kFile, kBlock, kFunction };
  From from = From::kFile;
  std::string source{};                // path, block name or expression
  std::vector<std::string> columns{};  // `using`, joined by ':' (data only)
  Look look{};
  std::string title{};  // "" for notitle

  static Series File(std::string path, std::vector<std::string> columns,
                     Look look, std::string title = "");
  static Series Block(std::string name, std::vector<std::string> columns,
                      Look look, std::string title = "");
  static Series Function(std::string expression, Look look,
                         std::string title = "");
};

// A shaded band across the x range [from, to] (to infinite: the right
// edge) behind the data, with a dotted vertical line at `line_at` and
// `label` at its top when given.
struct Band {
  double from = 0, to = 0;
  std::string rgb = "#dbe7f3";
  std::optional<double> line_at{};
  std::string label{};
};

enum class KeyPlace { kNone, kTopLeft, kTopRight, kBottomRight, kBelow };

struct Key {
  KeyPlace place = KeyPlace::kTopRight;
  int font_size = 0;  // 0: the terminal's
};

// Extra room around the data, as fractions of the graph.
struct Offsets {
  double left = 0, right = 0, top = 0, bottom = 0;
};

struct Panel {
  std::string title{};  // "" for none
  Axis x{}, y{};
  Key key{};
  bool grid = true;
  std::optional<Offsets> offsets{};
  std::vector<Band> bands{};
  std::vector<Series> series{};  // at least one
};

// One output file: a single panel, or panels stacked in one column under
// a common title.
struct Figure {
  std::string output{};
  std::string title{};  // with more than one panel: the multiplot's title
  std::vector<Panel> panels{};
};

// pngcairo, text as given (noenhanced: no '_' subscripts).
struct Terminal {
  int width = 1000, height = 700;
  std::string font{};  // "sans,10"; "" for the default
};

struct DataBlock {
  std::string name{};  // without '$'; a gnuplot name
  std::string text{};  // rows, one a line; no line "EOD"
};

struct Script {
  std::vector<std::string> comments{};  // "# " lines at the top
  Terminal terminal{};
  std::vector<DataBlock> blocks{};
  std::vector<Figure> figures{};
};

std::string Render(const Script& script);

}  // namespace verbsemu::plot

#endif  // VERBSEMU_PLOT_GNUPLOT_H_
