#include "verbsbench/compare/cli.h"

#include <boost/program_options.hpp>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "cli/cli.h"
#include "verbsbench/compare/compare.h"
#include "verbsbench/compare/format.h"
#include "verbsbench/compare/plot_command.h"
#include "verbsbench/compare/run.h"

namespace verbsbench::compare {
namespace po = boost::program_options;

namespace {

const char* kUsage =
    "usage: verbsbench compare [options] BASE.json NEW.json\n"
    "  Matches the points of two verbsbench --json runs (mode, op, size,\n"
    "  inline; lop: curve and p) and reports per point the quantiles'\n"
    "  ratios NEW/BASE and the KS and Wasserstein-1 distances of the two\n"
    "  distributions. Exit 0: every threshold holds (none given: report\n"
    "  only); 1: a threshold is crossed (one line each on stderr); 2: bad\n"
    "  usage, unreadable or mismatched files, or a failed plot.";

struct Args {
  std::vector<std::string> files;
  std::vector<std::string> ratios;
  std::string median, ks, wasserstein;
  std::string from = "auto";
  std::string json;
  std::string plot_dir;
  bool quiet = false;
  bool help = false;
  Thresholds thresholds;
  Source source = Source::kAuto;
};

po::options_description Describe(Args& a) {
  po::options_description desc("options");
  // clang-format off
  desc.add_options()
      ("help,h", po::bool_switch(&a.help), "this help")
      ("max-median-ratio", po::value<std::string>(&a.median), "fail when a point's median NEW/BASE exceeds R (same as --max-ratio p50=R)")
      ("max-ratio", po::value<std::vector<std::string>>(&a.ratios)->composing(), "Q=R: fail when a point's quantile Q (min, p1, p5, p25, p50 or median, p75, p90, p95, p99, p999, max, mean) NEW/BASE exceeds R; repeatable")
      ("max-ks", po::value<std::string>(&a.ks), "fail when a point's KS distance exceeds D (0..1)")
      ("max-wasserstein-ns", po::value<std::string>(&a.wasserstein), "fail when a point's Wasserstein-1 distance exceeds W ns")
      ("distance-from", po::value<std::string>(&a.from)->default_value("auto"), "auto|raw|bins: distances from the raw samples (--raw runs) or the stored histogram bins; auto: raw when both runs kept every sample")
      ("json", po::value<std::string>(&a.json), "write the comparison as JSON to FILE (- = stdout)")
      ("plot-dir", po::value<std::string>(&a.plot_dir), "draw both PDFs and CDFs per point into DIR (tools/plot, gnuplot)")
      ("quiet,q", po::bool_switch(&a.quiet), "no table on stdout");
  // clang-format on
  return desc;
}

// A finite number spelled in full, at least `low` (above it if `open`).
double Number(const std::string& text, const std::string& what, double low,
              bool open) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v) || v < low ||
      (open && v == low)) {
    throw std::invalid_argument(what + " '" + text + "' is not a number " +
                                (open ? "above " : "from ") +
                                std::to_string(static_cast<int>(low)));
  }
  return v;
}

void AddRatio(Thresholds& t, const std::string& name, double limit,
              const std::string& flag) {
  if (!t.max_ratio.emplace(name, limit).second) {
    throw std::invalid_argument(flag + ": a second limit for " + name);
  }
}

void ApplyThresholds(const po::variables_map& vm, Args& a) {
  Thresholds& t = a.thresholds;
  if (vm.count("max-median-ratio")) {
    AddRatio(t, "p50", Number(a.median, "--max-median-ratio", 0, true),
             "--max-median-ratio");
  }
  for (const std::string& item : a.ratios) {
    const size_t eq = item.find('=');
    const auto name = CanonicalQuantile(item.substr(0, eq));
    if (eq == std::string::npos || !name) {
      throw std::invalid_argument("--max-ratio '" + item +
                                  "': expected Q=R with Q one of min, p1, "
                                  "p5, p25, p50, median, p75, p90, p95, "
                                  "p99, p999, max, mean");
    }
    AddRatio(t, *name,
             Number(item.substr(eq + 1), "--max-ratio " + *name, 0, true),
             "--max-ratio");
  }
  if (vm.count("max-ks")) {
    t.max_ks = Number(a.ks, "--max-ks", 0, false);
    if (*t.max_ks > 1) throw std::invalid_argument("--max-ks is at most 1");
  }
  if (vm.count("max-wasserstein-ns")) {
    t.max_wasserstein_ns =
        Number(a.wasserstein, "--max-wasserstein-ns", 0, false);
  }
}

// Throws std::invalid_argument with a one-line message on bad usage.
Args Parse(int argc, const char* const argv[], std::string& help) {
  Args a;
  const po::options_description desc = Describe(a);
  const po::variables_map vm = verbsemu::cli::Parse(
      std::vector<std::string>(argv + 1, argv + argc), desc, {"base", "new"});
  help = verbsemu::cli::Help(kUsage, desc);
  if (a.help) return a;
  for (const char* name : {"base", "new"}) {
    if (vm.count(name)) a.files.push_back(vm[name].as<std::string>());
  }
  if (a.files.size() != 2) {
    throw std::invalid_argument("needs BASE.json and NEW.json (" +
                                std::to_string(a.files.size()) +
                                " files given); try --help");
  }
  ApplyThresholds(vm, a);
  a.source = ParseSource(a.from);
  return a;
}

void WriteJson(const std::string& path, const nlohmann::json& j,
               std::ostream& out) {
  if (path == "-") {
    out << j.dump(1) << "\n";
    return;
  }
  std::ofstream f(path);
  f << j.dump(1) << "\n";
  f.close();
  if (!f) throw std::runtime_error("--json: cannot write '" + path + "'");
}

// Draws the overlays; a failure is one line.
void Plot(const Args& a, std::ostream& out) {
  const std::optional<std::string> script = FindPlotScript();
  if (!script) {
    throw std::runtime_error(
        "--plot-dir: tools/plot not found (bazel build //tools/plot, or set "
        "VERBSBENCH_PLOT to bazel-bin/tools/plot/plot)");
  }
  const PlotOutcome plot =
      RunPlot({*script, "-o", a.plot_dir, "--distance-from", a.from,
               "--compare", a.files[0], a.files[1]});
  if (!plot.ok) throw std::runtime_error("--plot-dir: " + plot.error);
  if (!a.quiet) out << plot.output;
}

}  // namespace

int CompareMain(int argc, const char* const argv[], std::ostream& out,
                std::ostream& err) {
  Args a;
  std::string help;
  try {
    a = Parse(argc, argv, help);
  } catch (const std::exception& e) {
    err << "verbsbench compare: " << e.what() << "\n";
    return 2;
  }
  if (a.help) {
    out << help;
    return 0;
  }
  std::vector<Crossing> crossings;
  try {
    const Comparison c =
        Compare(ReadRun(a.files[0]), ReadRun(a.files[1]), a.source);
    crossings = Judge(c, a.thresholds);
    if (!a.quiet) {
      PrintComparison(c, out);
      PrintVerdict(c, a.thresholds, crossings, out);
    }
    if (!a.json.empty()) {
      WriteJson(a.json, ComparisonJson(c, a.thresholds, crossings), out);
    }
    if (!a.plot_dir.empty()) Plot(a, out);
  } catch (const std::exception& e) {
    err << "verbsbench compare: " << e.what() << "\n";
    return 2;
  }
  for (const Crossing& x : crossings) {
    err << "verbsbench compare: " << x.Line() << "\n";
  }
  return crossings.empty() ? 0 : 1;
}

}  // namespace verbsbench::compare
