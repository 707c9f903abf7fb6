// The sweep's PNGs through gnuplot: DIR/latency.png (the metric's median
// with its 95% interval at each added latency, and the fitted line) and
// DIR/bandwidth.png (the same against bandwidth share). The data and the
// script stay in DIR, so a plot can be redrawn or restyled by hand.
#ifndef VERBSEMU_SWEEP_PLOT_H_
#define VERBSEMU_SWEEP_PLOT_H_

#include <string>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/executor.h"

namespace verbsemu::sweep {

struct PlotFiles {
  std::string latency_data, bandwidth_data, script;  // contents
  std::vector<std::string> pngs;                     // names they make
};

PlotFiles MakePlotFiles(const Analysis& a, const std::string& metric);

struct PlotResult {
  std::vector<std::string> pngs;  // made
  std::string note;   // one line when none was made (no gnuplot, ...)
  std::string error;  // one line when a file could not be written
};

// Writes the files into `dir` (each replaced atomically) and runs gnuplot.
PlotResult Plot(const Analysis& a, const std::string& metric,
                const std::string& dir, Executor* executor);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PLOT_H_
