// Extracts the histograms of a verbsbench --json run (every object with a
// "histogram":[{"lo_ns","hi_ns","count","pdf","cdf"}...] array, wherever it
// sits, e.g. under "stats") into gnuplot .dat files.
#ifndef VERBSEMU_TOOLS_PLOT_HISTOGRAM_DAT_H_
#define VERBSEMU_TOOLS_PLOT_HISTOGRAM_DAT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verbsemu::plot {

struct Bin {
  double lo_ns = 0, hi_ns = 0;
  std::uint64_t count = 0;
  double pdf = 0;  // As given, else count / total.
  double cdf = 0;  // As given, else cumulative count / total.
};

struct Histogram {
  std::string name;   // File-name-safe, from the JSON path: results_0_stats.
  std::string path;   // JSON pointer of the object holding "histogram".
  std::string label;  // Human label: path plus the owner's op/size/... .
  std::uint64_t total = 0;
  std::vector<Bin> bins;  // Sorted by lo_ns.
};

// `s` as a file name: runs of characters other than [A-Za-z0-9.-] become
// one '_', none at the ends; `fallback` if nothing is left.
std::string SafeFileName(const std::string& s, const char* fallback);

// The JSON document `text` read from `input`; throws std::runtime_error
// "'INPUT' is not valid JSON: WHY" (one line).
nlohmann::json ParseRun(const std::string& text, const std::string& input);

// Finds every histogram in the document. Throws std::runtime_error with a
// one-line message if a "histogram" array is malformed.
std::vector<Histogram> FindHistograms(const nlohmann::json& doc);

// Writes <dir>/hist_<name>.dat (columns: lo_ns hi_ns mid_ns count pdf cdf)
// for each histogram and <dir>/histograms.tsv (name, file, total, label).
// Throws std::runtime_error on I/O failure.
void WriteHistogramDats(const std::string& dir,
                        const std::vector<Histogram>& hists);

}  // namespace verbsemu::plot

#endif  // VERBSEMU_TOOLS_PLOT_HISTOGRAM_DAT_H_
