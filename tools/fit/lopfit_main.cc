// lopfit: fits the LoP paper's t_rtt / t_ov models to `verbsbench lop --json`
// output and prints lambdas, R^2, residuals, L(p), L_list(p) and predicted
// 1:n times. See docs/fitting.md.
#include <boost/program_options.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include "tools/fit/lop_analysis.h"
#include "tools/fit/lop_data.h"

namespace po = boost::program_options;
namespace fit = verbsemu::fit;

namespace {

constexpr char kUsage[] = "usage: lopfit [options] INPUT.json";

int Fail(const std::string& msg, int code) {
  std::cerr << "lopfit: error: " << msg << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")(
      "stat", po::value<std::string>()->default_value("median"),
      "statistic per point to fit: min, median or mean")(
      "json", po::value<std::string>(),
      "write the fit results as JSON to FILE")(
      "gnuplot-dir", po::value<std::string>(),
      "write .dat files and curves.tsv for tools/plot/plot.sh into DIR")(
      "predict-max", po::value<int>()->default_value(0),
      "extend L(p) and the t_1:n predictions from the fits up to n = N")(
      "quiet,q", "do not print the text report");
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
  const auto stat = fit::ParseStat(vm["stat"].as<std::string>());
  if (!stat) {
    return Fail("--stat must be min, median or mean, not '" +
                    vm["stat"].as<std::string>() + "'",
                2);
  }
  const int predict_max = vm["predict-max"].as<int>();
  if (predict_max < 0 || predict_max > 1000000) {
    return Fail("--predict-max must be between 0 and 1000000", 2);
  }
  const std::string input = vm["input"].as<std::string>();
  try {
    const fit::LopRun run = fit::LoadLop(input);
    const fit::LopAnalysis analysis = fit::Analyze(run, *stat, predict_max);
    if (vm.count("json")) {
      const std::string path = vm["json"].as<std::string>();
      std::ofstream out(path);
      nlohmann::json j = fit::ToJson(analysis);
      j["input"] = input;
      out << j.dump(2) << "\n";
      if (!out) throw fit::LopInputError("cannot write '" + path + "'");
    }
    if (vm.count("gnuplot-dir")) {
      fit::WriteGnuplotDir(vm["gnuplot-dir"].as<std::string>(), analysis);
    }
    if (!vm.count("quiet")) {
      std::cout << "input: " << input << "\n";
      fit::PrintText(std::cout, analysis);
    }
  } catch (const fit::LopInputError& e) {
    return Fail(e.what(), 1);
  } catch (const std::exception& e) {
    return Fail(e.what(), 1);
  }
  return 0;
}
