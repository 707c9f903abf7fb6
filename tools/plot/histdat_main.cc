// histdat: writes the histograms of a verbsbench --json run as gnuplot .dat
// files (used by tools/plot/plot.sh).
#include <boost/program_options.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tools/plot/histogram_dat.h"

namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "usage: histdat [--out-dir DIR] [--allow-none] INPUT.json";

int Fail(const std::string& msg, int code) {
  std::cerr << "histdat: error: " << msg << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")(
      "out-dir,o", po::value<std::string>()->default_value("."),
      "directory for hist_<name>.dat and histograms.tsv")(
      "allow-none", "exit 0 when the input has no histogram");
  po::options_description all;
  all.add(opts).add_options()("input", po::value<std::string>());
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
  if (!vm.count("input"))
    return Fail(std::string("no input file (") + kUsage + ")", 2);
  const std::string input = vm["input"].as<std::string>();
  try {
    std::ifstream in(input, std::ios::binary);
    if (!in) return Fail("cannot open '" + input + "'", 1);
    std::stringstream buf;
    buf << in.rdbuf();
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(buf.str());
    } catch (const nlohmann::json::parse_error& e) {
      std::string what = e.what();
      const auto p = what.find("] ");
      if (p != std::string::npos) what = what.substr(p + 2);
      return Fail("'" + input + "' is not valid JSON: " + what, 1);
    }
    const auto hists = verbsemu::plot::FindHistograms(doc);
    if (hists.empty() && !vm.count("allow-none")) {
      return Fail("'" + input + "' has no \"histogram\" arrays", 1);
    }
    verbsemu::plot::WriteHistogramDats(vm["out-dir"].as<std::string>(), hists);
    for (const auto& h : hists) {
      std::cout << h.name << "\t" << h.bins.size() << " bins\t" << h.total
                << " samples\t" << h.label << "\n";
    }
  } catch (const std::exception& e) {
    return Fail(e.what(), 1);
  }
  return 0;
}
