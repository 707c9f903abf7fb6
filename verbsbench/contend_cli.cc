#include "verbsbench/contend_cli.h"

#include <boost/program_options.hpp>
#include <fstream>
#include <sstream>

#include "base/read_file.h"
#include "cli/cli.h"
#include "emulate/units.h"
#include "models/contention/contend_data.h"
#include "verbsbench/contend/checks.h"
#include "verbsbench/contend/graph_set.h"
#include "verbsbench/contend/summary.h"

namespace verbsbench {
namespace po = boost::program_options;

namespace {

const char* kUsage =
    "usage: verbsbench contend [HOST] [options]\n"
    "  Contention graphs: every rank is a vertex (rank v runs vertex v, the\n"
    "  labels in order of first appearance); each edge an RC QP moving\n"
    "  --size by RDMA WRITE from a common start. Under mpirun -np N or\n"
    "  srun -n N: rank 0 is the root; over TCP: the root with --peers N-1,\n"
    "  then N-1 peers with the root's HOST. The root prints per graph and\n"
    "  edge T = receiver's end - planned start, and --json writes the\n"
    "  measurement file contentionfit reads (verbsemu.contend/1).";

struct Text {
  std::string size = "4MiB", wr_size = "64KiB", lead = "200ms", rte = "auto",
              wait = "spin", graphs_file;
  std::uint64_t seed = 1;
};

po::options_description Describe(ContendCommandLine& cl, Text& t) {
  Options& o = cl.team;
  internal::ContendOptions& c = cl.contend;
  po::options_description desc("options");
  // clang-format off
  desc.add_options()
      ("help,h", "this help")
      ("graph,g", po::value<std::vector<std::string>>(&c.graphs)->composing(), "a graph '[NAME:] a>b[:SIZE][@START],a>c,...' or a set: calibrate, shapes:E (E <= 3), mm2011, random:N:E1-E2; repeatable (default: calibrate)")
      ("graphs", po::value<std::string>(&t.graphs_file), "FILE: one --graph per line ('#' comments)")
      ("closure", po::bool_switch(&c.closure), "add the residual graphs an inversion needs (mm2011-node's order of ends)")
      ("reps,r", po::value<int>(&c.reps)->default_value(5), "repetitions: randomized complete blocks")
      ("seed", po::value<std::uint64_t>(&t.seed)->default_value(1), "seed of the block order and of random:")
      ("max-degree", po::value<int>(&c.max_degree)->default_value(3), "random: out- and in-degree bound")
      ("size,s", po::value<std::string>(&t.size)->default_value("4MiB"), "bytes per edge unless the edge says")
      ("wr-size", po::value<std::string>(&t.wr_size)->default_value("64KiB"), "bytes per RDMA WRITE")
      ("window,t", po::value<int>(&c.window)->default_value(4), "WRs outstanding per QP")
      ("lead", po::value<std::string>(&t.lead)->default_value("200ms"), "start time ahead of the root's clock (at least 20 control round trips)")
      ("wait", po::value<std::string>(&t.wait)->default_value("spin"), "spin|yield between empty polls (yield when ranks outnumber cores)")
      ("steady", po::bool_switch(&c.steady), "record each WR's completion at its sender (completions_ns): contentionfit fit also reads each edge's penalty from its rate while every edge of its graph runs")
      ("peers,P", po::value<int>(&o.peers)->default_value(1), "TCP root: peers to accept")
      ("port", po::value<uint16_t>(&o.port)->default_value(18515), "TCP control port")
      ("bind", po::value<std::string>(&o.bind), "root: address to listen on")
      ("rte", po::value<std::string>(&t.rte)->default_value("auto"), "auto|tcp|mpi (auto: mpi under mpirun/srun without HOST)")
      ("ib-dev,d", po::value<std::string>(&o.ib_dev), "RDMA device (default: first)")
      ("ib-port,i", po::value<int>(&o.ib_port)->default_value(1), "device port")
      ("gid-index,x", po::value<int>(&o.gid_index)->default_value(-1), "GID index (-1: IPv4-mapped RoCEv2 GID if any)")
      ("timeout", po::value<double>(&o.timeout_s)->default_value(30), "seconds to wait for peers, messages and a run")
      ("json", po::value<std::string>(&cl.json), "write the measurement file to FILE (- = stdout)")
      ("csv", po::value<std::string>(&cl.csv), "write every run's edges as CSV to FILE (- = stdout): one row per graph, run and edge")
      ("quiet,q", po::bool_switch(&cl.quiet), "no table on stdout");
  // clang-format on
  return desc;
}

std::int64_t Bytes(const std::string& text, const char* option,
                   std::int64_t max) {
  std::string why;
  const auto b = verbsemu::units::ParseBytes(text, &why);
  if (!b || *b == 0 || *b > static_cast<std::uint64_t>(max))
    throw std::invalid_argument(
        std::string(option) + " '" + text + "' is not accepted: " +
        (why.empty() ? "1 byte to " + std::to_string(max) : why));
  return static_cast<std::int64_t>(*b);
}

std::vector<std::string> ReadGraphsFile(const std::string& path) {
  std::string text, why;
  if (!verbsemu::base::ReadFileText(path, 1 << 20, &text, &why))
    throw std::invalid_argument("--graphs '" + path + "': " + why);
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      out.push_back(line);
  }
  return out;
}

void Apply(const Text& t, ContendCommandLine& cl) {
  internal::ContendOptions& c = cl.contend;
  c.bytes = Bytes(t.size, "--size", std::int64_t{1} << 30);
  c.wr_size = Bytes(t.wr_size, "--wr-size", std::int64_t{1} << 30);
  if (c.window < 1 || c.window > 1024)
    throw std::invalid_argument("--window must be 1 to 1024");
  if (c.wr_size * c.window > (std::int64_t{1} << 30))
    throw std::invalid_argument("--wr-size times --window must be at most 1G");
  if (c.reps < 1 || c.reps > 10000)
    throw std::invalid_argument("--reps must be 1 to 10000");
  if (t.seed > 0x7fffffff)
    throw std::invalid_argument("--seed must be 0 to 2147483647");
  c.seed = t.seed;
  std::string why;
  const auto lead = verbsemu::units::ParseDurationNs(t.lead, &why);
  if (!lead || *lead < 1e6 || *lead > 60e9)
    throw std::invalid_argument("--lead '" + t.lead + "' is not accepted: " +
                                (why.empty() ? "1ms to 60s" : why));
  c.lead_ns = static_cast<std::int64_t>(*lead);
  if (t.wait != "spin" && t.wait != "yield")
    throw std::invalid_argument("bad --wait '" + t.wait + "' (spin or yield)");
  c.yield = t.wait == "yield";
  const std::optional<Rte> rte = Parse<Rte>(t.rte);
  if (!rte)
    throw std::invalid_argument("bad --rte '" + t.rte + "' (" + Choices<Rte>() +
                                ")");
  cl.team.rte = *rte;
  if (!t.graphs_file.empty())
    for (std::string& g : ReadGraphsFile(t.graphs_file))
      c.graphs.push_back(std::move(g));
  if (!(cl.team.timeout_s > 0))
    throw std::invalid_argument("--timeout must be > 0");
  if (cl.team.peers < 1) throw std::invalid_argument("--peers must be >= 1");
  // Every graph must parse (the ranks are known at the start only).
  contend::SetOptions so;
  so.ranks = 2 * static_cast<int>(verbsemu::contention::kMaxEdges);
  so.bytes = c.bytes;
  int left_out = 0;
  const std::vector<std::string> checked =
      c.graphs.empty() ? std::vector<std::string>{"calibrate"} : c.graphs;
  for (const std::string& g : checked) {
    for (const contend::PlannedGraph& p :
         contend::ExpandGraphs(g, so, &left_out)) {
      for (const verbsemu::contention::EdgePlan& e : p.edges) {
        if (c.steady && (e.bytes + c.wr_size - 1) / c.wr_size >
                            static_cast<std::int64_t>(
                                verbsemu::contention::kMaxContendCompletions))
          throw std::invalid_argument(
              "--steady records each WR: an edge of '" + p.name + "' is " +
              std::to_string(e.bytes) + " bytes, more than " +
              std::to_string(verbsemu::contention::kMaxContendCompletions) +
              " WRs of --wr-size");
      }
    }
  }
}

}  // namespace

ContendCommandLine ParseContendCommandLine(
    const std::vector<std::string>& args) {
  ContendCommandLine cl;
  Text t;
  const po::options_description desc = Describe(cl, t);
  const po::variables_map vm = verbsemu::cli::Parse(args, desc, {"host"});
  if (vm.count("host")) cl.team.host = vm["host"].as<std::string>();
  cl.help_text = verbsemu::cli::Help(kUsage, desc);
  if (vm.count("help")) {
    cl.help = true;
    return cl;
  }
  Apply(t, cl);
  cl.team.argv = args;
  return cl;
}

namespace {

// `text` to FILE, or to `out` for "-"; nothing for "". Throws
// std::runtime_error when FILE cannot be written.
void WriteTo(const std::string& file, const std::string& text,
             std::ostream& out) {
  if (file == "-") {
    out << text;
  } else if (!file.empty()) {
    std::ofstream f(file);
    f << text;
    if (!f) throw std::runtime_error("cannot write '" + file + "'");
  }
}

}  // namespace

int ContendMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  return verbsemu::cli::Run("verbsbench", err, [&] {
    ContendCommandLine cl;
    try {
      cl = ParseContendCommandLine(args);
    } catch (const std::exception& e) {
      throw verbsemu::cli::UsageError(e.what());
    }
    if (cl.help) {
      out << cl.help_text;
      return 0;
    }
    std::ostringstream sink;
    const auto data =
        internal::RunContend(cl.team, cl.contend, cl.quiet ? sink : err);
    if (!data) return 0;  // a peer
    if (!cl.quiet) contend::PrintTable(contend::Summarize(*data), out);
    for (const std::string& w : contend::Check(*data)) {
      err << "verbsbench contend: warning: " << w << "\n";
    }
    WriteTo(cl.json, verbsemu::contention::WriteContend(*data), out);
    if (!cl.csv.empty()) {
      std::ostringstream csv;
      contend::WriteCsv(*data, csv);
      WriteTo(cl.csv, csv.str(), out);
    }
    return 0;
  });
}

}  // namespace verbsbench
