#include "models/contention/contentionfit.h"

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "cli/cli.h"
#include "emulate/units.h"
#include "models/contention/contentionfit_data.h"
#include "models/contention/graph.h"
#include "models/contention/inverse.h"
#include "models/contention/models.h"
#include "models/contention/solver.h"

namespace verbsemu::contention {
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage =
    "usage: contentionfit predict GRAPH [--model M] [--sizes S[,S...]] "
    "[--starts T[,T...]] [--alpha A] | contentionfit invert GRAPH --times "
    "T,T,... [--model M] [--sizes S] [--alpha A] [--tolerance R] | "
    "contentionfit fit RUN.json [--models M,M...] [--model M] [--tolerance R] "
    "[--json F] | contentionfit export RUN.json --out F [--model M] | "
    "contentionfit synth --model M [--seed N] [--reps N] [--noise X] "
    "[--rate B] [--sizes S] [--wr-size S] [--out F] | contentionfit compare "
    "BASE.json "
    "OTHER.json [--expect R] [--within D] [--json F]";

struct Request {
  Graph graph;
  const Model* model = nullptr;
  std::vector<Transfer> transfers;
  double alpha = 0;
  std::vector<double> times_s;  // invert: measured durations
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, ',');) parts.push_back(p);
  if (text.empty() || text.back() == ',') parts.push_back("");
  return parts;
}

// One value per edge from "V" (all edges) or "V1,...,VE".
template <typename Parse>
std::vector<double> PerEdge(const std::string& option, const std::string& text,
                            int edges, Parse parse) {
  const std::vector<std::string> parts = SplitCommas(text);
  if (parts.size() != 1 && static_cast<int>(parts.size()) != edges)
    throw UsageError(option + " has " + std::to_string(parts.size()) +
                     " values for " + std::to_string(edges) +
                     " edges: give one, or one per edge");
  std::vector<double> values;
  for (const std::string& p : parts) {
    std::string why;
    const auto v = parse(p, &why);
    if (!v) throw UsageError(option + ": '" + p + "' is not accepted: " + why);
    values.push_back(*v);
  }
  if (values.size() == 1) values.assign(edges, values[0]);
  return values;
}

std::optional<double> ParseSeconds(const std::string& s, std::string* why) {
  const auto ns = units::ParseDurationNs(s, why);
  return ns ? std::optional<double>(*ns * 1e-9) : std::nullopt;
}

Request Read(const po::variables_map& vm) {
  Request r;
  std::string why;
  const std::string text = vm["operand"].as<std::string>();
  auto g = ParseGraph(text, &why);
  if (!g) throw DataError("bad graph '" + text + "': " + why);
  r.graph = std::move(*g);
  const std::string model = vm["model"].as<std::string>();
  r.model = FindModel(model);
  if (!r.model)
    throw UsageError("--model must be one of " + ModelNames() + ", not '" +
                     model + "'");
  const int n = r.graph.edge_count();
  const auto sizes = PerEdge(
      "--sizes", vm["sizes"].as<std::string>(), n,
      [](const std::string& s, std::string* w) -> std::optional<double> {
        const auto b = units::ParseBytes(s, w);
        if (b && *b == 0) *w = "a size must be > 0";
        return b && *b > 0 ? std::optional<double>(*b) : std::nullopt;
      });
  const auto starts =
      PerEdge("--starts", vm["starts"].as<std::string>(), n, ParseSeconds);
  for (int i = 0; i < n; ++i) r.transfers.push_back({sizes[i], starts[i]});
  if (vm.count("times"))
    r.times_s =
        PerEdge("--times", vm["times"].as<std::string>(), n, ParseSeconds);
  r.alpha = vm["alpha"].as<double>();
  if (!(r.alpha > 0) || r.alpha > 1)
    throw UsageError("--alpha must be seconds per byte in (0, 1]");
  return r;
}

std::string Row(const char* fmt, auto... args) {
  char line[256];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

std::string EdgeName(const Graph& g, int i) {
  return g.labels[g.edges[i].src] + ">" + g.labels[g.edges[i].dst];
}

void PrintPrediction(const Request& r, const Solution& s, std::ostream& out) {
  const Graph& g = r.graph;
  out << "model " << r.model->name << ", alpha " << Row("%.6g", r.alpha)
      << " s/B, " << g.edge_count() << " edges\n";
  out << Row("%-4s %-24s %14s %12s %12s %12s %9s\n", "edge", "transfer",
             "bytes", "start_s", "end_s", "time_s", "/alone");
  for (int i = 0; i < g.edge_count(); ++i) {
    const Transfer& t = r.transfers[i];
    const double time = s.end_s[i] - t.start_s;
    out << Row("%-4d %-24s %14.0f %12.7f %12.7f %12.7f %9.4f\n", i,
               EdgeName(g, i).c_str(), t.bytes, t.start_s, s.end_s[i], time,
               time / (r.alpha * t.bytes));
  }
  out << "\n"
      << Row("%-4s %12s %12s %-4s %-24s %9s %14s\n", "step", "begin_s", "end_s",
             "edge", "transfer", "rho", "bytes_left");
  for (size_t k = 0; k < s.steps.size(); ++k)
    for (const StepEdge& e : s.steps[k].active)
      out << Row("%-4zu %12.7f %12.7f %-4d %-24s %9.4f %14.0f\n", k + 1,
                 s.steps[k].begin_s, s.steps[k].end_s, e.edge,
                 EdgeName(g, e.edge).c_str(), e.rho, e.remaining);
}

// Static-synchronous: all start at 0 with one size; the later steps'
// penalties from the model.
void RunInvert(const Request& r, double tolerance, std::ostream& out) {
  const Graph& g = r.graph;
  if (r.times_s.empty())
    throw UsageError("invert needs --times, one duration per edge");
  for (const Transfer& t : r.transfers)
    if (t.bytes != r.transfers[0].bytes || t.start_s != 0)
      throw UsageError(
          "invert takes one size and no --starts (all edges "
          "start together with the same size)");
  const double bytes = r.transfers[0].bytes;
  const Inversion inv = contention::Invert(g, r.times_s, bytes, r.alpha,
                                           r.model->penalties, tolerance);
  out << "later steps: model " << r.model->name << ", alpha "
      << Row("%.6g", r.alpha) << " s/B, " << Row("%.0f", bytes)
      << " bytes per edge, " << g.edge_count() << " edges\n";
  out << Row("%-4s %-24s %12s %9s %9s %14s %9s\n", "edge", "transfer", "time_s",
             "/alone", "rho1", "step1_bytes", "amplif");
  for (int i = 0; i < g.edge_count(); ++i)
    out << Row("%-4d %-24s %12.7f %9.4f %9.4f %14.0f %9.3f\n", i,
               EdgeName(g, i).c_str(), r.times_s[i],
               r.times_s[i] / (r.alpha * bytes), inv.rho1[i],
               inv.step1_bytes[i], bytes / inv.step1_bytes[i]);
}

po::options_description Options() {
  po::options_description o("options");
  o.add_options()("help,h", "this text")(
      "version", "print the version and exit (the first argument, alone)")(
      "model", po::value<std::string>()->default_value("mm2011-node"),
      ("penalty model (invert, fit: for the later steps; export: the file's, "
       "default the best; synth: the one that makes the data): " +
       ModelNames())
          .c_str())(
      "sizes", po::value<std::string>()->default_value("20MiB"),
      "bytes per transfer: one for all, or one per edge (4MiB,1G,...); "
      "synth: one, default 512KiB")(
      "starts", po::value<std::string>()->default_value("0"),
      "predict: start times, one for all or one per edge (0,1ms,...)")(
      "times", po::value<std::string>(),
      "invert: measured durations, one per edge (36.3ms,...)")(
      "tolerance", po::value<double>()->default_value(1e-3, "0.001"),
      "invert, fit: relative spread of end times that count as one end "
      "(fit: default 0.02)")(
      "alpha", po::value<double>()->default_value(5.105e-10, "5.105e-10"),
      "seconds per byte of a lone transfer (default: the paper's 1.82 GiB/s)")(
      "models", po::value<std::string>(),
      "fit, export: the models to compare, M,M,... (default: all)")(
      "json", po::value<std::string>(),
      "fit, compare: also write the result as JSON")(
      "expect", po::value<double>(),
      "compare: the ratio OTHER/BASE every edge should have (2: a port "
      "rate halved); exit 1 when an edge is outside it")(
      "within", po::value<double>()->default_value(0.04, "0.04"),
      "compare: how far from --expect a ratio may be")(
      "out", po::value<std::string>(),
      "export: the penalties file; synth: the measurement (default stdout)")(
      "rate", po::value<std::string>()->default_value("256KiB"),
      "synth: port rate, bytes per second")(
      "reps", po::value<int>()->default_value(5), "synth: runs per graph")(
      "noise", po::value<double>()->default_value(0.01, "0.01"),
      "synth: relative noise of each time")(
      "seed", po::value<std::uint64_t>()->default_value(1), "synth: seed")(
      "wr-size", po::value<std::string>(),
      "synth: also record each WR's completion, WRs of this size (as "
      "verbsbench contend --steady does)");
  return o;
}

// The command line in `vm`: command, operand (GRAPH or RUN.json), options.
// Every option is parsed here and in the Read* functions below.
po::variables_map ParseCommandLine(const std::vector<std::string>& args,
                                   const po::options_description& options) {
  try {
    return cli::Parse(args, options, {"command", "operand", "operand2"});
  } catch (const UsageError& e) {
    throw UsageError(std::string(e.what()) + " (" + kUsage + ")");
  }
}

FitOptions ReadFitOptions(const po::variables_map& vm) {
  FitOptions o;
  if (vm.count("models"))
    o.models = SplitCommas(vm["models"].as<std::string>());
  for (const std::string& m : o.models)
    if (!FindModel(m))
      throw UsageError("--models: '" + m + "' is not one of " + ModelNames());
  if (!vm["model"].defaulted()) o.later_model = vm["model"].as<std::string>();
  if (!o.later_model.empty() && !FindModel(o.later_model))
    throw UsageError("--model must be one of " + ModelNames());
  if (!vm["tolerance"].defaulted()) o.tolerance = vm["tolerance"].as<double>();
  if (!(o.tolerance >= 0) || o.tolerance >= 1)
    throw UsageError("--tolerance must be in [0, 1)");
  return o;
}

SynthOptions ReadSynthOptions(const po::variables_map& vm) {
  SynthOptions o;
  o.model = FindModel(vm["model"].as<std::string>());
  if (!o.model) throw UsageError("--model must be one of " + ModelNames());
  std::string why;
  const auto rate = units::ParseBytes(vm["rate"].as<std::string>(), &why);
  if (!rate || *rate == 0)
    throw UsageError("--rate must be bytes per second > 0 (256KiB, 1G)");
  o.port_rate_Bps = static_cast<double>(*rate);
  if (!vm["sizes"].defaulted()) {
    const auto bytes = units::ParseBytes(vm["sizes"].as<std::string>(), &why);
    if (!bytes || *bytes == 0 || *bytes > (1ULL << 40))
      throw UsageError("synth: --sizes must be one size > 0 (512KiB)");
    o.bytes = static_cast<std::int64_t>(*bytes);
  }
  o.reps = vm["reps"].as<int>();
  o.noise = vm["noise"].as<double>();
  o.seed = vm["seed"].as<std::uint64_t>();
  if (vm.count("wr-size")) {
    const auto wr = units::ParseBytes(vm["wr-size"].as<std::string>(), &why);
    if (!wr || *wr == 0 || *wr > (1ULL << 40))
      throw UsageError("synth: --wr-size must be a size > 0 (16KiB)");
    o.wr_size = static_cast<std::int64_t>(*wr);
  }
  return o;
}

// compare BASE OTHER.
int RunCompareCommand(const po::variables_map& vm, std::ostream& out) {
  if (!vm.count("operand") || !vm.count("operand2"))
    throw UsageError(
        "compare needs two measurements, BASE.json and OTHER.json");
  DataRequest r;
  r.file = vm["operand"].as<std::string>();
  r.other = vm["operand2"].as<std::string>();
  if (vm.count("json")) r.json_out = vm["json"].as<std::string>();
  if (vm.count("expect")) {
    r.expect = vm["expect"].as<double>();
    if (!(r.expect > 0) || !std::isfinite(r.expect))
      throw UsageError("--expect must be a ratio > 0");
  }
  r.within = vm["within"].as<double>();
  if (!(r.within >= 0) || !std::isfinite(r.within))
    throw UsageError("--within must be >= 0");
  return RunCompare(r, out);
}

// fit, export, synth.
void RunOnData(const std::string& command, const po::variables_map& vm,
               std::ostream& out) {
  DataRequest r;
  if (vm.count("out")) r.out = vm["out"].as<std::string>();
  if (command == "synth") {
    r.synth = ReadSynthOptions(vm);
    return RunSynth(r, out);
  }
  if (!vm.count("operand"))
    throw UsageError("no RUN.json, the measurement to " + command);
  r.file = vm["operand"].as<std::string>();
  r.fit = ReadFitOptions(vm);
  if (command == "fit") {
    if (vm.count("json")) r.json_out = vm["json"].as<std::string>();
    return RunFit(r, out);
  }
  if (r.out.empty()) throw UsageError("export needs --out FILE");
  r.model = r.fit.later_model;
  RunExport(r, out);
}

int Run(const std::vector<std::string>& args, std::ostream& out) {
  const po::options_description options = Options();
  const po::variables_map vm = ParseCommandLine(args, options);
  if (vm.count("help")) {
    out << cli::Help(kUsage, options);
    return 0;
  }
  if (vm.count("version"))
    throw UsageError("--version is answered alone: contentionfit --version");
  if (!vm.count("command"))
    throw UsageError(std::string("no command (") + kUsage + ")");
  const std::string command = vm["command"].as<std::string>();
  if (vm.count("operand2") && command != "compare")
    throw UsageError("unexpected argument '" +
                     vm["operand2"].as<std::string>() + "' (" + kUsage + ")");
  if (command == "compare") return RunCompareCommand(vm, out);
  if (command == "fit" || command == "export" || command == "synth") {
    RunOnData(command, vm, out);
    return 0;
  }
  if (command != "predict" && command != "invert")
    throw UsageError("unknown command '" + command + "' (" + kUsage + ")");
  if (!vm.count("operand"))
    throw UsageError(std::string("no GRAPH, e.g. a>b,a>c (") + kUsage + ")");
  const Request r = Read(vm);
  if (command == "invert") {
    const double tolerance = vm["tolerance"].as<double>();
    if (!(tolerance >= 0) || tolerance >= 1)
      throw UsageError("--tolerance must be in [0, 1)");
    RunInvert(r, tolerance, out);
  } else {
    PrintPrediction(r, Solve(r.graph, r.transfers, r.alpha, r.model->penalties),
                    out);
  }
  return 0;
}

}  // namespace

int RunContentionfit(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  return cli::Run("contentionfit: error", err, [&] { return Run(args, out); });
}

}  // namespace verbsemu::contention
