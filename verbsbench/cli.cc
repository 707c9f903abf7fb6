#include "verbsbench/cli.h"

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/cli.h"
#include "emulate/units.h"
#include "verbsbench/compare/cli.h"
#include "verbsbench/contend_cli.h"
#include "verbsbench/engine.h"
#include "verbsbench/internal/modes.h"
#include "verbsbench/mode.h"
#include "verbsbench/report.h"
#include "verbsbench/rte/launcher.h"

namespace verbsbench {
namespace po = boost::program_options;

namespace {

std::vector<std::string> SplitCommas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ',')) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

// --help: this, a blank line, the options. The modes and their lines come
// from the modes' table.
std::string Usage() {
  std::string usage =
      "usage: verbsbench " + std::string(verbsemu::base::kEnumBar<Mode>) +
      " [HOST] [options]\n"
      "       verbsbench compare [options] BASE.json NEW.json  "
      "(see compare --help)\n"
      "       verbsbench contend [HOST] [options]  (contention "
      "graphs; see contend --help)\n"
      "       verbsbench --version\n"
      "  Without HOST: root (server) - waits for peers, "
      "measures, reports.\n"
      "  With HOST:    peer (client) - connects to the root and "
      "serves it.\n";
  for (const internal::ModeRow& row : internal::kModes) usage += row.help;
  return usage +
         "  Under mpirun -np P+1 or srun -n P+1: rank 0 is the root, the other "
         "ranks its peers.";
}

// What the command line gives as text, before it becomes typed options.
struct Text {
  std::string mode, cm, wait, inline_mode, size_spec, p_spec, rte, loggp_delay;
  std::vector<std::string> ops;
  bool yield = false;
};

po::options_description Describe(CommandLine& cl, Text& t) {
  Options& o = cl.options;
  po::options_description desc("options");
  // clang-format off
  desc.add_options()
      ("help,h", "this help")
      ("port", po::value<uint16_t>(&o.port)->default_value(18515), "TCP control port (rdma_cm listens on port+1)")
      ("bind", po::value<std::string>(&o.bind), "root: address to listen on")
      ("cm", po::value<std::string>(&t.cm)->default_value("auto"), "connection setup: auto|rdmacm|tcp (auto: rdma_cm, else out-of-band TCP)")
      ("rte", po::value<std::string>(&t.rte)->default_value("auto"), "how root and peers meet: auto|tcp|mpi (auto: mpi when mpirun/srun started this process and no HOST is given; rank 0 is the root)")
      ("ib-dev,d", po::value<std::string>(&o.ib_dev), "RDMA device (out-of-band mode; default: first)")
      ("ib-port,i", po::value<int>(&o.ib_port)->default_value(1), "device port")
      ("gid-index,x", po::value<int>(&o.gid_index)->default_value(-1), "GID index (-1: IPv4-mapped RoCEv2 GID if any)")
      ("op,o", po::value<std::vector<std::string>>(&t.ops)->composing(), "send|write|read, comma list (lat/bw default send; lop: send,write)")
      ("inline", po::value<std::string>(&t.inline_mode), "off|on|both (lat/bw default off, lop both)")
      ("size,s", po::value<std::string>(&t.size_spec), "message size N[K|KiB|M|MiB|G] (binary; KB, MB refused as ambiguous) or sweep MIN:MAX (powers of two)")
      ("iters,n", po::value<uint64_t>(&o.iters)->default_value(1000), "measured iterations per point")
      ("warmup,w", po::value<uint64_t>(&o.warmup)->default_value(100), "unmeasured iterations first")
      ("duration,D", po::value<double>(&o.duration_s)->default_value(0), "run each point ~S seconds instead of --iters")
      ("cycle", po::value<uint64_t>(&o.cycle)->default_value(1000), "samples per cycle (per-cycle minimums)")
      ("mode-resolution", po::value<double>(&o.mode_resolution)->default_value(kDefaultModeResolution, "0.2"), "report peaks closer than this relative gap (0.02..1) as one mode")
      ("window,t", po::value<uint32_t>(&o.window)->default_value(128), "bw: tx depth (outstanding WRs)")
      ("post-list,l", po::value<uint32_t>(&o.post_list)->default_value(1), "bw: WRs per ibv_post_send")
      ("cq-mod,Q", po::value<uint32_t>(&o.cq_mod)->default_value(16), "bw: signal every N WRs")
      ("bidirectional,b", po::bool_switch(&o.bidirectional), "bw: both sides stream")
      ("wait", po::value<std::string>(&t.wait)->default_value("spin"), "spin|yield|event: how to wait (yield/event when pollers outnumber cores); root passes it to peers")
      ("yield", po::bool_switch(&t.yield), "same as --wait yield")
      ("peers,P", po::value<int>(&o.peers)->default_value(1), "lop root: number of peers to accept")
      ("p", po::value<std::string>(&t.p_spec), "lop: p values, e.g. 1:16 or 1,2,4,8 (default 1..P)")
      ("loggp-n", po::value<int>(&o.loggp_n)->default_value(16), "loggp: messages per PRTT(n,d,s) train")
      ("loggp-delay", po::value<std::string>(&t.loggp_delay), "loggp: d of PRTT(n,d,s), e.g. 50us (default per size: the median PRTT(1,0,s) or twice the gap, the larger)")
      ("max-inline,I", po::value<uint32_t>(&o.max_inline)->default_value(256), "inline size to request from the device")
      ("timeout", po::value<double>(&o.timeout_s)->default_value(30), "seconds to wait for peers/messages")
      ("json", po::value<std::string>(&cl.outputs.json), "write the whole run as JSON to FILE (- = stdout)")
      ("csv", po::value<std::string>(&cl.outputs.csv), "write CSV to FILE (- = stdout)")
      ("histogram", po::value<std::string>(&cl.outputs.histogram), "write histogram bins (PDF, CDF) to FILE")
      ("raw", po::value<std::string>(&cl.outputs.raw), "write raw samples to FILE")
      ("raw-max", po::value<uint64_t>(&o.raw_limit)->default_value(0), "raw samples kept per point (default 100000 with --raw)")
      ("quiet,q", po::bool_switch(&cl.outputs.quiet), "no table on stdout");
  // clang-format on
  return desc;
}

// `text` as an E, or a one-line error naming the choices.
template <class E>
E ParseChoice(const std::string& text, const std::string& error) {
  const std::optional<E> value = Parse<E>(text);
  if (!value)
    throw std::invalid_argument(error + " '" + text + "' (" + Choices<E>() +
                                ")");
  return *value;
}

// Turns the text into typed options.
void Apply(const Text& t, CommandLine& cl) {
  Options& o = cl.options;
  if (t.mode.empty())
    throw std::invalid_argument("missing mode (" + Choices<Mode>() +
                                "); try --help");
  const std::optional<Mode> mode = Parse<Mode>(t.mode);
  if (!mode) {
    throw std::invalid_argument("unknown mode '" + t.mode + "' (expected " +
                                Choices<Mode>() + ")");
  }
  o.mode = *mode;
  for (const std::string& op : SplitCommas(t.ops)) {
    o.ops.push_back(ParseChoice<Op>(op, "unknown operation"));
  }
  if (!t.inline_mode.empty()) o.inline_modes = ParseInlineModes(t.inline_mode);
  if (!t.size_spec.empty()) o.sizes = ParseSizes(t.size_spec);
  if (!t.p_spec.empty()) o.p_values = ParseIntRange(t.p_spec);
  if (!t.loggp_delay.empty()) {
    std::string why;
    const std::optional<double> ns =
        verbsemu::units::ParseDurationNs(t.loggp_delay, &why);
    if (!ns) {
      throw std::invalid_argument("--loggp-delay '" + t.loggp_delay +
                                  "' is not accepted: " + why);
    }
    o.loggp_delay_ns = *ns;
  }
  o.cm = ParseChoice<Cm>(t.cm, "bad --cm");
  o.rte = ParseChoice<Rte>(t.rte, "bad --rte");
  o.wait = t.yield ? Wait::kYield : ParseChoice<Wait>(t.wait, "bad --wait");
  if (!cl.outputs.raw.empty() && o.raw_limit == 0) o.raw_limit = 100000;
  if (o.raw_limit > kMaxRawSamples) {
    throw std::invalid_argument("--raw-max " + std::to_string(o.raw_limit) +
                                " is above " + std::to_string(kMaxRawSamples) +
                                ": a peer's samples travel in one message");
  }
  if (!(o.timeout_s > 0)) throw std::invalid_argument("--timeout must be > 0");
  if (o.duration_s < 0) throw std::invalid_argument("--duration must be >= 0");
}

}  // namespace

CommandLine ParseCommandLine(int argc, const char* const argv[]) {
  CommandLine cl;
  Text t;
  const po::options_description desc = Describe(cl, t);
  // A bad command line throws cli::UsageError, an std::invalid_argument.
  const std::vector<std::string> args =
      argc > 1 ? std::vector<std::string>(argv + 1, argv + argc)
               : std::vector<std::string>();
  const po::variables_map vm =
      verbsemu::cli::Parse(args, desc, {"mode", "host"});
  if (vm.count("mode")) t.mode = vm["mode"].as<std::string>();
  if (vm.count("host")) cl.options.host = vm["host"].as<std::string>();
  cl.help_text = verbsemu::cli::Help(Usage(), desc);
  if (vm.count("help")) {
    cl.help = true;
    return cl;
  }
  Apply(t, cl);
  cl.options.argv.assign(argv, argv + argc);
  rte::ApplyLauncher(cl.options, !vm["peers"].defaulted(),
                     rte::ProcessEnvironment());
  cl.options = Normalize(cl.options);
  return cl;
}

int CliMain(int argc, const char* const argv[], std::ostream& out,
            std::ostream& err) {
  if (argc > 1 && std::string(argv[1]) == "compare") {
    return compare::CompareMain(argc - 1, argv + 1, out, err);
  }
  if (argc > 1 && std::string(argv[1]) == "contend") {
    return ContendMain(std::vector<std::string>(argv + 2, argv + argc), out,
                       err);
  }
  return verbsemu::cli::Run("verbsbench", err, [&] {
    CommandLine cl;
    try {
      cl = ParseCommandLine(argc, argv);
    } catch (const std::exception& e) {  // every refusal of the options
      throw verbsemu::cli::UsageError(e.what());
    }
    if (cl.help) {
      out << cl.help_text;
      return 0;
    }
    std::ostringstream progress_sink;
    std::ostream& progress = cl.outputs.quiet ? progress_sink : err;
    const nlohmann::json run = RunBenchmark(cl.options, progress);
    if (run.value("role", "") == "peer") {
      // Under a launcher the peers share the root's stdout.
      if (!cl.outputs.quiet && cl.options.rte != Rte::kMpi)
        out << "peer done\n";
      return 0;
    }
    if (!cl.outputs.quiet) PrintTable(run, out);
    PrintWarnings(run, err);
    if (!cl.outputs.json.empty()) WriteFile(cl.outputs.json, run, WriteJson);
    if (!cl.outputs.csv.empty()) WriteFile(cl.outputs.csv, run, WriteCsv);
    if (!cl.outputs.histogram.empty())
      WriteFile(cl.outputs.histogram, run, WriteHistograms);
    if (!cl.outputs.raw.empty()) WriteFile(cl.outputs.raw, run, WriteRaw);
    return 0;
  });
}

}  // namespace verbsbench
