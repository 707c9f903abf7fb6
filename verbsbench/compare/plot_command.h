// --plot-dir: the overlay PNGs are drawn by tools/plot (plot --compare),
// run as a separate program, so the comparison library needs no plotting
// code and verbsbench never uses tools/plot's figures or the writer below.
#ifndef VERBSBENCH_COMPARE_PLOT_COMMAND_H_
#define VERBSBENCH_COMPARE_PLOT_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

namespace verbsbench::compare {

// The plot program: $VERBSBENCH_PLOT, else the //tools/plot:plot built beside
// this binary (bazel-bin/verbsbench/verbsbench -> bazel-bin/tools/plot/plot).
std::optional<std::string> FindPlotScript();

struct PlotOutcome {
  bool ok = false;
  std::string output;  // what it printed (the PNGs made), or
  std::string error;   // one line on failure
};

// Runs argv (no shell), its stdout and stderr collected together.
PlotOutcome RunPlot(const std::vector<std::string>& argv);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_PLOT_COMMAND_H_
