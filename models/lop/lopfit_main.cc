// lopfit: fits the LoP paper's t_rtt / t_ov models (and their LogP
// baselines) to `verbsbench lop --json` output and prints the parameters with
// their 95% intervals, the model comparison, L(p), L_list(p) and the
// predicted 1:n times. Exit 0, 1 bad input, 2 usage, 3 a fit's 1:n error
// above --max-fit-error. See docs/fitting.md.
#include <boost/program_options.hpp>
#include <cmath>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include "models/fit/cli.h"
#include "models/lop/lop_analysis.h"
#include "models/lop/lop_data.h"
#include "models/lop/lop_report.h"

namespace po = boost::program_options;
namespace fit = verbsemu::fit;

namespace {

constexpr char kUsage[] = "usage: lopfit [options] INPUT.json";

// Why a forced model is not a member of its family ("" if it is).
std::string UnknownModel(const fit::AnalysisOptions& o) {
  const auto check = [](const std::string& name,
                        const std::vector<fit::ModelSpec>& family,
                        const char* option) -> std::string {
    if (name.empty()) return "";
    std::string known;
    for (const fit::ModelSpec& s : family) {
      if (s.name == name) return "";
      known += (known.empty() ? "" : ", ") + s.name;
    }
    return std::string(option) + " must be one of " + known + ", not '" + name +
           "'";
  };
  std::string why = check(o.rtt_model, fit::RttFamily(), "--rtt-model");
  return why.empty() ? check(o.overhead_model, fit::OverheadFamily(),
                             "--overhead-model")
                     : why;
}

// One line per derived curve whose fitted t_1:n misses by more than
// max_error; 3 if any did.
int Gate(const fit::LopAnalysis& a, double max_error) {
  int failed = 0;
  for (const fit::Derived& d : a.derived) {
    const double e = d.MaxFitError();
    if (std::isfinite(e) && e <= max_error) continue;
    std::cerr << "lopfit: " << (d.list ? "t^list_1:n" : "t_1:n") << " from "
              << d.rtt << ": fit error " << 100 * e << "% > " << 100 * max_error
              << "%\n";
    ++failed;
  }
  return failed ? 3 : 0;
}

po::options_description Options() {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("version",
                                                 "print the version and exit")(
      "stat", po::value<std::string>()->default_value("median"),
      "statistic per point to fit: min, median or mean")(
      "json", po::value<std::string>(),
      "write the fit results as JSON to FILE")(
      "gnuplot-dir", po::value<std::string>(),
      "write .dat files and curves.tsv for tools/plot into DIR")(
      "predict-max", po::value<int>()->default_value(0),
      "extend L(p) and the t_1:n predictions from the fits up to n = N")(
      "weights", po::value<std::string>()->default_value("relative"),
      "relative (fit relative deviations) or unit")(
      "rtt-model", po::value<std::string>()->default_value(""),
      "fit this t_rtt model (logp, pipeline, lop) instead of the AICc choice")(
      "overhead-model", po::value<std::string>()->default_value(""),
      "fit this t_ov model (const, lop) instead of the AICc choice")(
      "max-fit-error", po::value<double>(),
      "exit 3 if a fitted t_1:n is off the measured one by more than F "
      "(a fraction of n*t_rtt(n)/2) at any measured n")(
      "quiet,q", "do not print the text report");
  return opts;
}

// The analysis options from the command line, or why they are wrong.
std::string ReadOptions(const po::variables_map& vm,
                        fit::AnalysisOptions& options) {
  const auto stat = fit::ParseStat(vm["stat"].as<std::string>());
  if (!stat) {
    return "--stat must be min, median or mean, not '" +
           vm["stat"].as<std::string>() + "'";
  }
  options.stat = *stat;
  options.predict_max = vm["predict-max"].as<int>();
  if (options.predict_max < 0 || options.predict_max > 1000000) {
    return "--predict-max must be between 0 and 1000000";
  }
  const std::string weights = vm["weights"].as<std::string>();
  if (weights != "relative" && weights != "unit") {
    return "--weights must be relative or unit, not '" + weights + "'";
  }
  options.weighting =
      weights == "unit" ? fit::Weighting::kUnit : fit::Weighting::kRelative;
  options.rtt_model = vm["rtt-model"].as<std::string>();
  options.overhead_model = vm["overhead-model"].as<std::string>();
  if (vm.count("max-fit-error") && !(vm["max-fit-error"].as<double>() > 0)) {
    return "--max-fit-error must be > 0";
  }
  return UnknownModel(options);
}

// Analyses `input` and writes what the options ask for; the exit code.
int Analyse(const po::variables_map& vm, const fit::AnalysisOptions& options) {
  const std::string input = vm["input"].as<std::string>();
  const fit::LopAnalysis analysis = fit::Analyze(fit::LoadLop(input), options);
  if (vm.count("json")) {
    const std::string path = vm["json"].as<std::string>();
    std::ofstream out(path);
    nlohmann::json j = fit::ToJson(analysis);
    j["input"] = input;
    out << j.dump(2) << "\n";
    out.close();  // what is still buffered fails here, not before
    if (!out) throw fit::LopInputError("cannot write '" + path + "'");
  }
  if (vm.count("gnuplot-dir")) {
    fit::WriteGnuplotDir(vm["gnuplot-dir"].as<std::string>(), analysis);
  }
  if (!vm.count("quiet")) {
    std::cout << "input: " << input << "\n";
    fit::PrintText(std::cout, analysis);
  }
  if (vm.count("max-fit-error")) {
    return Gate(analysis, vm["max-fit-error"].as<double>());
  }
  return 0;
}

// The analysis options (throws UsageError), then the analysis.
int Run(const po::variables_map& vm) {
  fit::AnalysisOptions options;
  if (std::string why = ReadOptions(vm, options); !why.empty()) {
    throw fit::UsageError(why);
  }
  return Analyse(vm, options);
}

}  // namespace

int main(int argc, char** argv) {
  return fit::RunInputTool(argc, argv, {"lopfit", kUsage, Options(), Run});
}
