// plot: PNG plots of a verbsbench --json run with gnuplot, written through
// the one gnuplot writer (//plot). A PDF and CDF per histogram and all
// CDFs overlaid; for a `lop` run t_rtt(p), o_s(p)/o_r(p), L(p) and the t_1:n
// predictions with lopfit's fits; with --compare, two runs' PDFs and CDFs
// per shared point on the bins `verbsbench compare` measured on. The data,
// fit.json and the .gp scripts stay in OUTDIR/data. See docs/fitting.md.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "models/lop/lop_analysis.h"
#include "models/lop/lop_data.h"
#include "models/lop/lop_report.h"
#include "plot/draw.h"
#include "plot/gnuplot.h"
#include "tools/plot/compare_dat.h"
#include "tools/plot/figures.h"
#include "tools/plot/histogram_dat.h"
#include "verbsbench/compare/compare.h"
#include "verbsbench/compare/run.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace plot = verbsemu::plot;

namespace {

constexpr char kUsage[] =
    "usage: plot [-o OUTDIR] [--stat min|median|mean] [--predict-max N] "
    "INPUT.json\n"
    "       plot [-o OUTDIR] [--distance-from auto|raw|bins] --compare "
    "BASE.json NEW.json";

struct Job {
  std::vector<std::string> inputs;
  bool compare = false;
  fs::path out, data;
  verbsemu::fit::AnalysisOptions fit;
  verbsbench::compare::Source source = verbsbench::compare::Source::kAuto;
  std::vector<std::string> made;  // the PNGs drawn
};

po::options_description Options() {
  po::options_description o("options");
  o.add_options()("help,h", "show this help")(
      "out-dir,o", po::value<std::string>()->default_value("plots"),
      "directory for the PNGs; their data and scripts go to OUTDIR/data")(
      "stat", po::value<std::string>()->default_value("median"),
      "a lop run: the statistic per point lopfit fits (min, median, mean)")(
      "predict-max", po::value<int>()->default_value(0),
      "a lop run: extend L(p) and t_1:n from the fits up to n = N")(
      "compare", verbsemu::cli::Switch(),
      "two runs: both PDFs and CDFs per point they share")(
      "distance-from", po::value<std::string>()->default_value("auto"),
      "--compare: the shared bins from the raw samples or the stored bins "
      "(auto, raw, bins)");
  return o;
}

// The job the command line asks for; throws cli::UsageError.
Job ReadJob(const po::variables_map& vm) {
  using verbsemu::cli::UsageError;
  Job job;
  for (const char* name : {"input", "second"}) {
    if (vm.count(name)) job.inputs.push_back(vm[name].as<std::string>());
  }
  job.compare = vm.count("compare") > 0;
  const std::string see = " (see plot --help)";
  if (job.compare && job.inputs.size() != 2) {
    throw UsageError("--compare takes BASE.json and NEW.json" + see);
  }
  if (!job.compare && job.inputs.size() > 1) {
    throw UsageError("more than one input file" + see);
  }
  if (job.inputs.empty()) throw UsageError("no input file" + see);
  const std::string stat = vm["stat"].as<std::string>();
  const auto parsed = verbsemu::fit::ParseStat(stat);
  if (!parsed) {
    throw UsageError("--stat must be min, median or mean, not '" + stat + "'");
  }
  job.fit.stat = *parsed;
  job.fit.predict_max = vm["predict-max"].as<int>();
  if (job.fit.predict_max < 0 || job.fit.predict_max > 1000000) {
    throw UsageError("--predict-max must be between 0 and 1000000");
  }
  try {
    job.source =
        verbsbench::compare::ParseSource(vm["distance-from"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  job.out = fs::absolute(vm["out-dir"].as<std::string>());
  job.data = job.out / "data";
  return job;
}

// Writes data/<png's stem>.gp for the figure and draws it.
void Draw(Job& job, plot::Figure figure) {
  const fs::path png = figure.output;
  const std::string gp = (job.data / png.stem()).string() + ".gp";
  plot::Script script;
  script.terminal.font = "sans,10";
  script.figures = {std::move(figure)};
  std::ofstream out(gp);
  out << plot::Render(script);
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + gp + "'");
  if (std::string why = plot::Draw(gp); !why.empty()) {
    throw std::runtime_error(why);
  }
  job.made.push_back(png.string());
}

void Overlays(Job& job) {
  namespace cmp = verbsbench::compare;
  plot::WriteCompareDats(job.data.string(),
                         cmp::Compare(cmp::ReadRun(job.inputs[0]),
                                      cmp::ReadRun(job.inputs[1]), job.source));
  const std::string base = fs::path(job.inputs[0]).filename().string();
  const std::string next = fs::path(job.inputs[1]).filename().string();
  for (const plot::IndexRow& row :
       plot::ReadIndex((job.data / "compare.tsv").string(), 8)) {
    const fs::path png = job.out / ("overlay_" + row[0] + ".png");
    Draw(job, plot::OverlayFigure(row, (job.data / row[1]).string(),
                                  png.string(), base, next));
  }
  if (job.made.empty()) throw std::runtime_error("no point in common to plot");
}

// Whether the run's JSON has a "lop" member (anywhere): lopfit's input.
bool HasLop(const std::string& text) {
  for (size_t at = text.find("\"lop\""); at != std::string::npos;
       at = text.find("\"lop\"", at + 1)) {
    const size_t next = text.find_first_not_of(" \t\r\n", at + 5);
    if (next != std::string::npos && text[next] == ':') return true;
  }
  return false;
}

// The input's text, or one line saying why not.
std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void Histograms(Job& job, const std::string& text) {
  plot::WriteHistogramDats(
      job.data.string(),
      plot::FindHistograms(plot::ParseRun(text, job.inputs[0])));
  std::vector<std::string> dats, labels;
  for (const plot::IndexRow& row :
       plot::ReadIndex((job.data / "histograms.tsv").string(), 4)) {
    dats.push_back((job.data / row[1]).string());
    labels.push_back(row[3] + " (" + row[2] + " samples)");
    const fs::path png = job.out / ("hist_" + row[0] + ".png");
    Draw(job, plot::HistogramFigure(dats.back(), png.string(), labels.back()));
  }
  if (dats.size() > 1) {
    Draw(job,
         plot::CdfFigure(dats, labels, (job.out / "cdf_all.png").string()));
  }
}

// lopfit's analysis into data/ (fit.json, the curves), then its figures.
void LopCurves(Job& job) {
  namespace fit = verbsemu::fit;
  const std::string& input = job.inputs[0];
  const fit::LopAnalysis a = fit::Analyze(fit::LoadLop(input), job.fit);
  const std::string json = (job.data / "fit.json").string();
  std::ofstream out(json);
  nlohmann::json j = fit::ToJson(a);
  j["input"] = input;
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + json + "'");
  fit::WriteGnuplotDir(job.data.string(), a);
  const plot::Curves c{job.data.string(),
                       plot::ReadIndex((job.data / "curves.tsv").string(), 5),
                       fit::StatName(job.fit.stat)};
  const auto png = [&](const char* name) { return (job.out / name).string(); };
  const std::optional<plot::Figure> figures[] = {
      plot::CurveFigure(c, png("rtt.png"),
                        "t_rtt(p) = round(p)/p and its fits (dashed: LogP, "
                        "g + c/p)",
                        "t_rtt per peer [us]", {"rtt"}),
      plot::CurveFigure(c, png("overhead.png"), "o_s(p), o_r(p) and t_ov fits",
                        "overhead [us]", {"overhead_send", "overhead_recv"}),
      plot::DerivedFigure(
          c, png("latency.png"),
          {"L(p) = t_rtt(p)/2 - (o_s(p) + o_s(1)),  L_list(p) = "
           "t_rtt,list(p)/2 - (p o_s(p) + o_s(1))",
           "L [us]", 2, 3, "L", "L_list", true}),
      plot::DerivedFigure(c, png("predict.png"),
                          {"predicted t_1:n = o(n) + n L(n),  t^list_1:n = n "
                           "o(n) + n L_list(n)",
                           "t [us]", 4, 5, "t_1:n", "t^list_1:n", false})};
  for (const std::optional<plot::Figure>& f : figures) {
    if (f) Draw(job, *f);
  }
}

int Run(const std::vector<std::string>& args) {
  const po::options_description options = Options();
  const po::variables_map vm =
      verbsemu::cli::Parse(args, options, {"input", "second"});
  if (vm.count("help")) {
    std::cout << verbsemu::cli::Help(kUsage, options);
    return 0;
  }
  Job job = ReadJob(vm);
  if (!plot::GnuplotInstalled()) {
    throw std::runtime_error("gnuplot not found (apt-get install gnuplot-nox)");
  }
  for (const std::string& f : job.inputs) {
    if (access(f.c_str(), R_OK) != 0) {
      throw std::runtime_error("cannot open '" + f + "'");
    }
  }
  std::error_code ec;
  fs::create_directories(job.data, ec);
  if (!fs::is_directory(job.data)) {
    throw std::runtime_error("cannot create '" + job.data.string() + "'");
  }
  if (job.compare) {
    Overlays(job);
  } else {
    const std::string text = ReadText(job.inputs[0]);
    Histograms(job, text);
    if (HasLop(text)) LopCurves(job);
    if (job.made.empty()) {
      throw std::runtime_error("'" + job.inputs[0] +
                               "' has neither histograms nor lop curves");
    }
  }
  for (const std::string& png : job.made) std::cout << png << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return verbsemu::cli::Run("plot: error", std::cerr, [&] {
    // Under `bazel run` relative paths are relative to the user's directory.
    if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
        dir && *dir && chdir(dir) != 0) {
      throw std::runtime_error(std::string("cannot enter ") + dir);
    }
    return Run(std::vector<std::string>(argv + 1, argv + argc));
  });
}
