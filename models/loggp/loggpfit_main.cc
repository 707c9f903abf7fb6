// loggpfit: LogGP from `verbsbench loggp --json` output (Netgauge's PRTT
// method): g and G per segment of sizes by segmented regression (a split
// needs AICc and a Bonferroni F-test), and L, o_s, o_r per size (loggp_fit.h).
// Exit 0, 1 bad input, 2 usage, with one line on stderr. See docs/fitting.md.
#include <boost/program_options.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include "models/fit/cli.h"
#include "models/loggp/loggp_data.h"
#include "models/loggp/loggp_fit.h"
#include "models/loggp/loggp_report.h"

namespace po = boost::program_options;
namespace fit = verbsemu::fit;

namespace {

constexpr char kUsage[] =
    "usage: loggpfit [--stat min|median] [--max-segments K] [--split-alpha A] "
    "[--json FILE] RUN.json";

po::options_description Options() {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("version",
                                                 "print the version and exit")(
      "stat", po::value<std::string>()->default_value("median"),
      "statistic to fit: min or median (Netgauge's)")(
      "max-segments", po::value<int>()->default_value(3),
      "at most K segments of sizes with their own g and G (1..100)")(
      "split-alpha", po::value<double>()->default_value(0.05),
      "a split's F-test level over all breakpoint places searched, 0 < A < 1")(
      "json", po::value<std::string>(), "write the results as JSON to FILE");
  return opts;
}

int Analyse(const po::variables_map& vm, fit::LoggpStat stat,
            const fit::LoggpFitOptions& options) {
  const std::string input = vm["input"].as<std::string>();
  const fit::LoggpAnalysis a =
      fit::AnalyzeLoggp(fit::LoadLoggp(input, stat), options);
  if (vm.count("json")) {
    const std::string path = vm["json"].as<std::string>();
    std::ofstream out(path);
    nlohmann::json j = fit::LoggpToJson(a);
    j["input"] = input;
    out << j.dump(2) << "\n";
    out.close();  // what is still buffered fails here, not before
    if (!out) throw fit::LoggpInputError("cannot write '" + path + "'");
  }
  std::cout << "input: " << input << "\n";
  fit::PrintLoggpText(std::cout, a);
  return 0;
}

// The fit options (throws UsageError), then the analysis.
int Run(const po::variables_map& vm) {
  const auto stat = fit::ParseLoggpStat(vm["stat"].as<std::string>());
  if (!stat) {
    throw fit::UsageError("--stat must be min or median, not '" +
                          vm["stat"].as<std::string>() + "'");
  }
  fit::LoggpFitOptions options;
  options.max_segments = vm["max-segments"].as<int>();
  if (options.max_segments < 1 || options.max_segments > 100) {
    throw fit::UsageError("--max-segments must be between 1 and 100");
  }
  options.split_alpha = vm["split-alpha"].as<double>();
  // Written so that NaN fails too.
  if (!(options.split_alpha > 0 && options.split_alpha < 1)) {
    throw fit::UsageError("--split-alpha must be above 0 and below 1");
  }
  return Analyse(vm, *stat, options);
}

}  // namespace

int main(int argc, char** argv) {
  return fit::RunInputTool(argc, argv, {"loggpfit", kUsage, Options(), Run});
}
