// histdat: writes the histograms of a verbsbench --json run as gnuplot .dat
// files, as the plot program does; with --compare, the overlay data of two
// runs on the shared bins of `verbsbench compare` (plot --compare).
#include <boost/program_options.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "tools/plot/compare_dat.h"
#include "tools/plot/histogram_dat.h"
#include "verbsbench/compare/compare.h"
#include "verbsbench/compare/run.h"

namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "usage: histdat [--out-dir DIR] [--allow-none] INPUT.json\n"
    "       histdat --compare [--out-dir DIR] [--distance-from auto|raw|bins] "
    "BASE.json NEW.json";

int Fail(const std::string& msg, int code) {
  std::cerr << "histdat: error: " << msg << "\n";
  return code;
}

int Histograms(const std::string& input, const std::string& dir,
               bool allow_none) {
  std::ifstream in(input, std::ios::binary);
  if (!in) return Fail("cannot open '" + input + "'", 1);
  std::stringstream buf;
  buf << in.rdbuf();
  const auto hists = verbsemu::plot::FindHistograms(
      verbsemu::plot::ParseRun(buf.str(), input));
  if (hists.empty() && !allow_none) {
    return Fail("'" + input + "' has no \"histogram\" arrays", 1);
  }
  verbsemu::plot::WriteHistogramDats(dir, hists);
  for (const auto& h : hists) {
    std::cout << h.name << "\t" << h.bins.size() << " bins\t" << h.total
              << " samples\t" << h.label << "\n";
  }
  return 0;
}

int Overlays(const std::vector<std::string>& inputs, const std::string& dir,
             const std::string& from) {
  namespace cmp = verbsbench::compare;
  cmp::Source source = cmp::Source::kAuto;
  try {
    source = cmp::ParseSource(from);
  } catch (const std::invalid_argument& e) {
    return Fail(e.what(), 2);
  }
  const cmp::Comparison c =
      cmp::Compare(cmp::ReadRun(inputs[0]), cmp::ReadRun(inputs[1]), source);
  verbsemu::plot::WriteCompareDats(dir, c);
  for (const cmp::PointComparison& p : c.points) {
    std::cout << p.id << "\t" << p.shared.intervals() << " shared bins\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")(
      "out-dir,o", po::value<std::string>()->default_value("."),
      "directory for the .dat files and their index")(
      "allow-none", "exit 0 when the input has no histogram")(
      "compare", "two runs: both PDFs and CDFs per matched point")(
      "distance-from", po::value<std::string>()->default_value("auto"),
      "--compare: the shared bins from the raw samples or the stored bins");
  po::options_description all;
  all.add(opts).add_options()("input", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(
        po::command_line_parser(argc, argv).options(all).positional(pos).run(),
        vm);
    po::notify(vm);
  } catch (po::error& e) {
    return Fail(verbsemu::cli::ErrorText(e) + " (" + kUsage + ")", 2);
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << opts;
    return 0;
  }
  const std::vector<std::string> inputs =
      vm.count("input") ? vm["input"].as<std::vector<std::string>>()
                        : std::vector<std::string>{};
  const bool compare = vm.count("compare") > 0;
  if (inputs.size() != (compare ? 2u : 1u)) {
    return Fail(std::string(compare ? "--compare takes two input files"
                                    : "one input file") +
                    " (" + kUsage + ")",
                2);
  }
  const std::string dir = vm["out-dir"].as<std::string>();
  try {
    if (compare) {
      return Overlays(inputs, dir, vm["distance-from"].as<std::string>());
    }
    return Histograms(inputs[0], dir, vm.count("allow-none") > 0);
  } catch (const std::exception& e) {
    return Fail(e.what(), 1);
  }
}
