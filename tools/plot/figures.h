// The figures of tools/plot, as plot::Figure values for the one gnuplot
// writer (//plot): a histogram's PDF and CDF, every CDF overlaid, two runs'
// overlay per shared point (--compare), and a lop run's curves with their
// fits. Each reads the .dat files and index rows that histdat's and
// lopfit's libraries wrote into the data directory.
#ifndef VERBSEMU_TOOLS_PLOT_FIGURES_H_
#define VERBSEMU_TOOLS_PLOT_FIGURES_H_

#include <optional>
#include <string>
#include <vector>

#include "plot/gnuplot.h"

namespace verbsemu::plot {

// A row of an index file (histograms.tsv, compare.tsv, curves.tsv): its
// tab-separated fields, the last one holding the rest of the line.
using IndexRow = std::vector<std::string>;

// The rows of `path` split into at most `fields` fields, each row padded
// to `fields` with ""; empty and '#' lines skipped. Throws
// std::runtime_error when it cannot be read.
std::vector<IndexRow> ReadIndex(const std::string& path, size_t fields);

// A log time axis over histogram data files (lo_ns hi_ns ...): from the
// first row's lo_ns, or a lower positive one after it, to the highest
// hi_ns, 5% beyond each, with LogTics. A left end that is not positive
// becomes the right end / 1000.
Axis LogTimeAxis(const std::vector<std::string>& dats);

// One histogram (hist_<name>.dat): the PDF per bin, the CDF below.
Figure HistogramFigure(const std::string& dat, const std::string& png,
                       const std::string& label);

// Every histogram's CDF on one plot; `dats` and `labels` pair up.
Figure CdfFigure(const std::vector<std::string>& dats,
                 const std::vector<std::string>& labels,
                 const std::string& png);

// Both runs' PDF and CDF on a point's shared bins, from its compare.tsv
// row (name, file, base and new samples, KS, Wasserstein-1 ns, from,
// point); `base` and `next` name the runs' files.
Figure OverlayFigure(const IndexRow& row, const std::string& dat,
                     const std::string& png, const std::string& base,
                     const std::string& next);

// What a lop run's figures need: the data directory and its curves.tsv
// rows (type, name, data file, fit file, label), the statistic fitted.
struct Curves {
  std::string dir;
  std::vector<IndexRow> rows;
  std::string stat;
};

// The measured points (bars min..p99) and fitted lines of the curves whose
// type is in `types`, over a log y axis; nullopt when there is none.
std::optional<Figure> CurveFigure(const Curves& c, const std::string& png,
                                  const std::string& title,
                                  const std::string& ylabel,
                                  const std::vector<std::string>& types);

// L(p) and L_list(p) (or the t_1:n predictions): the measured column and
// the one from the fits of each derived curve, named `single` or `list`
// before the curve's name, and verbsbench's own latency curves with
// `with_latency`; nullopt when there is none.
struct Derived {
  std::string title, ylabel;
  int measured = 0, fitted = 0;  // columns of derived_*.dat
  std::string single, list;
  bool with_latency = false;
};
std::optional<Figure> DerivedFigure(const Curves& c, const std::string& png,
                                    const Derived& d);

}  // namespace verbsemu::plot

#endif  // VERBSEMU_TOOLS_PLOT_FIGURES_H_
