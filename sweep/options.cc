#include "sweep/options.h"

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "emulate/units.h"
#include "settings/knobs.h"
#include "sweep/grid.h"
#include "sweep/metric.h"
#include "sweep/plan.h"
#include "sweep/precision_options.h"

namespace verbsemu::sweep {
namespace {
namespace po = boost::program_options;

// One option of the sweep's: its name without "--", its value's name (null
// for a switch), what it does, and for a value kept as given (checked when
// the plan is used) the plan's field it goes to.
struct Row {
  const char* name;
  const char* metavar;
  const char* help;
  std::string SweepPlan::*field = nullptr;
};

// The grid's first axes; --bw-mode (the knob's) and the LogGP axes
// (kDurationAxes) follow them.
constexpr std::array kGridRows{
    Row{"latency", "LIST",
        "added one-way latencies, such as 0,1us,2us,5us (the shim's duration "
        "syntax)",
        &SweepPlan::latencies},
    Row{"bandwidth", "LIST",
        "bandwidths: shares of the link (100%,50%,25%) or rates (25Gbit/s); "
        "default 100%",
        &SweepPlan::bandwidths},
};

constexpr std::array kRows{
    Row{"repeat", "N",
        "blocks; each block runs every grid point once (default 5); with "
        "--precision, the blocks run before the interval is first judged "
        "(default 3, at least 3)"},
    Row{"precision", "REL",
        "add blocks one at a time until the headline estimate's 95% interval "
        "is within REL of it (0.05 or 5%: half-width at most 5% of the "
        "estimate); REL above 0 and below 1"},
    Row{"max-blocks", "N",
        "with --precision: at most N blocks in all (default 20)"},
    Row{"budget", "T",
        "with --precision: add no block that would take the runs past T (90m, "
        "2h, 600s; default none); the first --repeat blocks always run"},
    Row{"metric", "M",
        "runtime (wall time, the default), preset:NAME[:ARG] (a known tool's "
        "figure), regex:PATTERN (RE2 syntax, matched line by line on "
        "stdout+stderr: the first capture group of the last match, or the "
        "whole match without a group), json:POINTER (an RFC 6901 pointer into "
        "the JSON file named by --metric-file, which the command writes)",
        &SweepPlan::metric},
    Row{"metric-file", "F", "the JSON file the command writes (json:)",
        &SweepPlan::metric_file},
    Row{"metric-name", "N",
        "what the number is (\"step time\"), for the table, the plots and "
        "sweep.json; without it a preset names itself, and a regex: metric "
        "is named by the pattern's literal text before its first group",
        &SweepPlan::metric_name},
    Row{"metric-unit", "U",
        "the number's unit (ms), for the table, the plots and sweep.json; "
        "without it a preset gives its own, a regex: metric none",
        &SweepPlan::metric_unit},
    Row{"pingpong", "CMD",
        "a ping-pong, as a shell command line, swept over the same latencies "
        "in the same blocks: its runtime slope normalises c_a (the metric "
        "must then be a time in seconds)",
        &SweepPlan::pingpong},
    Row{"control", "CMD",
        "a control, as a shell command line with {latency_ns} or "
        "{latency_us} in it: run without the shim at every point that adds "
        "latency alone, in the same blocks, the placeholder replaced by the "
        "point's latency, for a program that can wait that long on its own "
        "(before each send); "
        "its slope is printed beside the shim's"},
    Row{"timeout", "D",
        "end a run after D (default 1h; none: never): its process group (the "
        "command and all it started) gets SIGTERM, then SIGKILL 5 s later; "
        "the run fails"},
    Row{"seed", "N",
        "the run order's random seed (default: from the clock; kept in "
        "plan.json)"},
    Row{"out", "DIR",
        "where runs, logs, reports and plots go (default "
        "sweep-YYYYmmdd-HHMMSS); new or empty",
        &SweepPlan::out_dir},
    Row{"no-plot", nullptr, "no PNGs (gnuplot is not needed then)"},
    Row{"allow-unemulated", nullptr,
        "go on when the pilot run wrote no shim report (no process opened an "
        "RDMA device under the shim)"},
    Row{"resume", "DIR",
        "go on with the interrupted sweep in DIR: same plan, same order, from "
        "the first run not recorded"},
    Row{"retry-failed", nullptr,
        "(with --resume) also run again the recorded runs that gave no "
        "metric, each row replaced as it ends"},
    Row{"force", nullptr,
        "(with --resume) go on with a shim build other than the one the sweep "
        "started with, or with a --precision, --max-blocks or --budget other "
        "than the plan's"},
};

const Row* FindRow(const std::string& flag) {
  const auto named = [&](const Row& row) {
    return flag == "--" + std::string(row.name);
  };
  for (const Row& row : kGridRows) {
    if (named(row)) return &row;
  }
  for (const Row& row : kRows) {
    if (named(row)) return &row;
  }
  return nullptr;
}

void Add(po::options_description& o, const Row& row) {
  if (row.metavar == nullptr) {
    o.add_options()(row.name, cli::Switch(), row.help);
  } else {
    o.add_options()(
        row.name,
        po::value<std::vector<std::string>>()->value_name(row.metavar),
        row.help);
  }
}

po::options_description Describe() {
  po::options_description o("FLAGS");
  for (const Row& row : kGridRows) Add(o, row);
  const shim::Knob& bw_mode = *shim::FindKnobByFlag("--bw-mode");
  Add(o, {"bw-mode", std::string(bw_mode.metavar).c_str(),
          (std::string(bw_mode.effect) + " (default " +
           std::string(bw_mode.fallback) + ")")
              .c_str()});
  for (const DurationAxis& a : kDurationAxes) {
    Add(o, {std::string(a.flag.substr(2)).c_str(), "LIST",
            std::string(a.help).c_str()});
  }
  for (const Row& row : kRows) Add(o, row);
  o.add_options()("help,h", cli::Switch(),
                  "print the usage and the options, and exit");
  return o;
}

const DurationAxis* FindAxis(const std::string& flag) {
  for (const DurationAxis& a : kDurationAxes) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

// --repeat and --seed: whole numbers.
bool SetNumberOption(const std::string& name, const std::string& value,
                     SweepPlan* plan, ParsedArgs* out) {
  char* end = nullptr;
  if (name == "--repeat") {
    const long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n < 1 || n > 10000) {
      out->error = "--repeat='" + value + "': expected a whole number 1..10000";
    }
    plan->repeat = static_cast<int>(n);
  } else if (name == "--seed") {
    plan->seed = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') {
      out->error = "--seed='" + value + "': expected a whole number";
    }
  } else {
    return false;
  }
  return true;
}

// Options whose value is checked here: --bw-mode, --control, --timeout.
bool SetCheckedOption(const std::string& name, const std::string& value,
                      SweepPlan* plan, ParsedArgs* out) {
  if (name == "--bw-mode") {
    if (value != "pad" && value != "pace") {
      out->error = "--bw-mode='" + value + "': expected pad or pace";
    }
    plan->bw_mode = value;
  } else if (name == "--control") {
    plan->control = value;
    if (value.find("{latency_ns}") == std::string::npos &&
        value.find("{latency_us}") == std::string::npos) {
      out->error = "--control='" + value +
                   "': put {latency_ns} or {latency_us} where the command "
                   "takes the time it waits on its own";
    }
  } else if (name == "--timeout") {
    std::string why;
    const auto ns = value == "none" ? std::optional<double>(0)
                                    : units::ParseDurationNs(value, &why);
    if (!ns || (*ns <= 0 && value != "none")) {
      out->error = "--timeout='" + value + "': expected a duration such as " +
                   "300s or 1500ms, or none";
    }
    plan->timeout_s = ns ? *ns / 1e9 : 0;
  } else {
    return false;
  }
  return true;
}

// Options that take a value, and where it goes.
bool SetOption(const std::string& name, const std::string& value,
               SweepPlan* plan, ParsedArgs* out) {
  // --precision, --max-blocks, --budget
  if (SetPrecisionOption(name, value, out)) return true;
  if (const Row* row = FindRow(name); row && row->field) {
    plan->*row->field = value;
    return true;
  }
  if (const DurationAxis* axis = FindAxis(name)) {
    plan->durations[static_cast<size_t>(axis - kDurationAxes.data())] = value;
    return true;
  }
  if (name == "--resume") {
    out->resume_dir = value;
    return true;
  }
  return SetNumberOption(name, value, plan, out) ||
         SetCheckedOption(name, value, plan, out);
}

// Options without a value; `*resume` counts those --resume takes.
bool SetSwitch(const std::string& a, SweepPlan* plan, ParsedArgs* out,
               int* resume) {
  if (a == "--no-plot") {
    plan->plot = false;
  } else if (a == "--allow-unemulated") {
    plan->allow_unemulated = true;
  } else if (a == "--force") {
    out->force = true;
    ++*resume;
  } else if (a == "--retry-failed") {
    out->retry_failed = true;
    ++*resume;
  } else {
    return false;
  }
  return true;
}

// Checks what can be checked before anything runs.
void Validate(SweepPlan& plan, ParsedArgs* out) {
  std::string why;
  if (plan.command.empty()) {
    out->error = "no command: verbsemu sweep [FLAGS] -- COMMAND ARGS...";
  } else if (!PlanGrid(plan, &why) ||
             !Metric::Parse(plan.metric, plan.metric_file, &why)) {
    out->error = why;
  }
}

// With --precision, the blocks to run first (--repeat, else 3) and the
// goal; without it, --repeat's default.
void SetGoal(bool repeat_given, SweepPlan* plan, ParsedArgs* out) {
  if (!out->precision) {
    if (out->max_blocks || out->budget_s) {
      out->error = "--max-blocks and --budget go with --precision REL";
    }
    if (!repeat_given) plan->repeat = SweepPlan{}.repeat;
    return;
  }
  PrecisionGoal goal = WithGiven(PrecisionGoal{}, *out);
  if (repeat_given) goal.min_blocks = plan->repeat;
  const std::string first = std::to_string(goal.min_blocks);
  if (goal.min_blocks < 3) {
    out->error = "--repeat " + first +
                 " with --precision: at least 3 blocks run before the "
                 "interval is judged";
  } else if (goal.max_blocks < goal.min_blocks) {
    out->error = "--max-blocks " + std::to_string(goal.max_blocks) +
                 " is below the " + first +
                 " blocks run before the interval is judged (--repeat, 3 "
                 "unless given)";
  }
  plan->precision = goal;
  plan->repeat = goal.min_blocks;
}

// After the flags: --resume's checks, or the new sweep's command and goal.
// `options`: those given, --resume's switches left out.
void FinishArgs(std::vector<std::string> command, int options,
                bool resume_switches, bool repeat_given, SweepPlan plan,
                ParsedArgs* out) {
  if (!out->resume_dir.empty()) {
    const int goal_options = (out->precision ? 1 : 0) +
                             (out->max_blocks ? 1 : 0) +
                             (out->budget_s ? 1 : 0);
    if (!command.empty() || options - goal_options != 1) {
      out->error =
          "--resume DIR takes only --retry-failed, --force, --precision, "
          "--max-blocks and --budget: the plan is in DIR";
    }
    return;
  }
  if (resume_switches) {
    out->error = "--retry-failed and --force go with --resume DIR";
    return;
  }
  plan.command = std::move(command);
  SetGoal(repeat_given, &plan, out);
  if (out->error.empty()) Validate(plan, out);
  if (out->error.empty()) out->plan = std::move(plan);
}

// Each option given, in the description's order, each value in the order
// given; the first refusal is kept. Returns how many were given (each
// value once) and counts --resume's switches in `*resume`.
int ApplyOptions(const po::variables_map& vm, SweepPlan* plan, ParsedArgs* out,
                 int* resume) {
  int given = 0;
  for (const auto& d : SweepOptions().options()) {
    const std::string& name = d->long_name();
    if (!vm.count(name) || name == "help") continue;
    const std::string flag = "--" + name;
    if (d->semantic()->max_tokens() == 0) {
      ++given;
      if (out->error.empty()) SetSwitch(flag, plan, out, resume);
      continue;
    }
    for (const std::string& value : vm[name].as<std::vector<std::string>>()) {
      ++given;
      if (out->error.empty()) SetOption(flag, value, plan, out);
    }
  }
  return given;
}

constexpr const char* kUsage =
    "usage: verbsemu sweep [FLAGS] -- COMMAND ARGS...\n"
    "       verbsemu sweep --resume DIR [--retry-failed] [--force]\n"
    "                      [--precision REL] [--max-blocks N] [--budget T]";

}  // namespace

const po::options_description& SweepOptions() {
  static const po::options_description options = Describe();
  return options;
}

std::string SweepOptionsMarkdown() {
  return cli::MarkdownTable(SweepOptions());
}

std::string SweepUsage() {
  return cli::Help(kUsage, SweepOptions()) +
         "Ctrl-C, SIGTERM or SIGHUP stop the sweep: the run under way gets "
         "the\n"
         "signal, SIGTERM 5 s later, SIGKILL 5 s after that (a second signal:\n"
         "SIGKILL at once); what ran is kept for --resume.\n";
}

ParsedArgs ParseSweepArgs(const std::vector<std::string>& args,
                          const std::string& default_out, uint64_t seed) {
  ParsedArgs out;
  std::vector<std::string> command;
  po::variables_map vm;
  try {
    vm = cli::ParseWithCommand(args, SweepOptions(), &command);
  } catch (const cli::UsageError& e) {
    out.error = std::string(e.what()) + " (see verbsemu sweep -h)";
    return out;
  }
  if (vm.count("help")) {
    out.help = true;
    return out;
  }
  SweepPlan plan;
  plan.seed = seed;
  plan.out_dir = default_out;
  plan.repeat = 0;  // not given
  int resume_switches = 0;
  const int options = ApplyOptions(vm, &plan, &out, &resume_switches);
  const bool repeat_given = plan.repeat != 0;
  if (out.error.empty()) {
    FinishArgs(std::move(command), options - resume_switches,
               resume_switches > 0, repeat_given, std::move(plan), &out);
  }
  return out;
}

}  // namespace verbsemu::sweep
