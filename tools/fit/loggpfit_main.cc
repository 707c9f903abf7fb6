// loggpfit: LogGP from `verbsbench loggp --json` output (Netgauge's PRTT
// method): g and G per segment of sizes by segmented regression (a split
// needs AICc and a Bonferroni F-test), and L, o_s, o_r per size (loggp_fit.h).
// Exit 0, 1 bad input, 2 usage, with one line on stderr. See docs/fitting.md.
#include <boost/program_options.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include "tools/fit/loggp_data.h"
#include "tools/fit/loggp_fit.h"
#include "tools/fit/loggp_report.h"

namespace po = boost::program_options;
namespace fit = verbsemu::fit;

namespace {

constexpr char kUsage[] =
    "usage: loggpfit [--stat min|median] [--max-segments K] [--split-alpha A] "
    "[--json FILE] RUN.json";

int Fail(const std::string& msg, int code) {
  std::cerr << "loggpfit: error: " << msg << "\n";
  return code;
}

po::options_description Options() {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")(
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
    if (!out) throw fit::LoggpInputError("cannot write '" + path + "'");
  }
  std::cout << "input: " << input << "\n";
  fit::PrintLoggpText(std::cout, a);
  return 0;
}

int Run(int argc, char** argv) {
  const po::options_description opts = Options();
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  try {
    po::store(
        po::command_line_parser(argc, argv).options(all).positional(pos).run(),
        vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Fail(std::string(e.what()) + " (" + kUsage + ")", 2);
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << opts;
    return 0;
  }
  if (!vm.count("input")) {
    return Fail(std::string("no input file (") + kUsage + ")", 2);
  }
  const auto stat = fit::ParseLoggpStat(vm["stat"].as<std::string>());
  if (!stat) {
    return Fail("--stat must be min or median, not '" +
                    vm["stat"].as<std::string>() + "'",
                2);
  }
  fit::LoggpFitOptions options;
  options.max_segments = vm["max-segments"].as<int>();
  if (options.max_segments < 1 || options.max_segments > 100) {
    return Fail("--max-segments must be between 1 and 100", 2);
  }
  options.split_alpha = vm["split-alpha"].as<double>();
  // Written so that NaN fails too.
  if (!(options.split_alpha > 0 && options.split_alpha < 1)) {
    return Fail("--split-alpha must be above 0 and below 1", 2);
  }
  try {
    return Analyse(vm, *stat, options);
  } catch (const std::exception& e) {  // LopInputError and anything else
    return Fail(e.what(), 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (...) {
    std::cerr << "loggpfit: error: unexpected failure\n";
    return 1;
  }
}
