#include "sweep/plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include "emulate/units.h"
#include "sweep/metric.h"
#include "sweep/precision_options.h"

namespace verbsemu::sweep {
namespace {

const DurationAxis* FindAxis(const std::string& flag) {
  for (const DurationAxis& a : kDurationAxes) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

// Options whose value is kept as given (checked when the plan is used).
struct StringOption {
  std::string_view name;
  std::string SweepPlan::*field;
};
constexpr std::array kStringOptions{
    StringOption{"--latency", &SweepPlan::latencies},
    StringOption{"--bandwidth", &SweepPlan::bandwidths},
    StringOption{"--metric", &SweepPlan::metric},
    StringOption{"--metric-file", &SweepPlan::metric_file},
    StringOption{"--metric-name", &SweepPlan::metric_name},
    StringOption{"--metric-unit", &SweepPlan::metric_unit},
    StringOption{"--out", &SweepPlan::out_dir},
    StringOption{"--pingpong", &SweepPlan::pingpong},
};

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
  for (const StringOption& o : kStringOptions) {
    if (name == o.name) {
      plan->*o.field = value;
      return true;
    }
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

}  // namespace

std::string SweepUsage() {
  std::string axes;
  for (const DurationAxis& a : kDurationAxes) {
    std::string left = "  " + std::string(a.flag) + " LIST";
    left.resize(std::max<size_t>(left.size() + 1, 21), ' ');
    axes += left + std::string(a.help) + "\n";
  }
  return "usage: verbsemu sweep [FLAGS] -- COMMAND ARGS...\n"
         "       verbsemu sweep --resume DIR [--retry-failed] [--force]\n"
         "                      [--precision REL] [--max-blocks N] "
         "[--budget T]\n"
         "  --latency LIST     added one-way latencies (0,1us,2us,5us)\n"
         "  --bandwidth LIST   bandwidths: shares (100%,50%) or rates\n"
         "  --bw-mode pad|pace how bandwidth is taken away (default pad)\n" +
         axes +
         "  --repeat N         blocks; each runs every point once (5)\n"
         "  --precision REL    add blocks until the estimate's 95% interval\n"
         "                     is within REL of it (0.05 or 5%); --repeat\n"
         "                     blocks (3 unless given) run first\n"
         "  --max-blocks N     (with --precision) at most N blocks (20)\n"
         "  --budget T         (with --precision) add no block that would "
         "take\n"
         "                     the runs past T (90m, 2h; default none)\n"
         "  --metric M         runtime | preset:NAME[:ARG] | regex:PATTERN |\n"
         "                     json:POINTER\n"
         "  --metric-file F    the JSON file the command writes (json:)\n"
         "  --metric-name N, --metric-unit U\n"
         "                     what the number is, for tables and plots\n"
         "  --pingpong CMD     a ping-pong (shell command line) whose\n"
         "                     runtime slope normalises c_a to 1 (the\n"
         "                     metric must then be a time in seconds)\n"
         "  --control CMD      a control (shell command line) run at each\n"
         "                     latency without the shim, {latency_ns} or\n"
         "                     {latency_us} in it replaced by the point's:\n"
         "                     a program waiting that long on its own; its\n"
         "                     slope is printed beside the shim's\n"
         "  --seed N           the order's random seed (default: clock)\n"
         "  --timeout D        end a run after D (default 1h; none: never):\n"
         "                     its process group gets SIGTERM, then SIGKILL\n"
         "                     5 s later; the run fails\n"
         "  --allow-unemulated go on when the pilot run wrote no shim\n"
         "                     report (no process opened an RDMA device\n"
         "                     under the shim)\n"
         "  --out DIR          where runs, logs, reports and plots go\n"
         "  --no-plot          no PNGs (gnuplot is not needed then)\n"
         "  --retry-failed     (with --resume) run the failed runs again\n"
         "  --force            (with --resume) go on with a shim build other\n"
         "                     than the one the sweep started with\n"
         "Ctrl-C, SIGTERM or SIGHUP stop the sweep: the run under way gets "
         "the\n"
         "signal, SIGTERM 5 s later, SIGKILL 5 s after that (a second signal:\n"
         "SIGKILL at once); what ran is kept for --resume.\n";
}

ParsedArgs ParseSweepArgs(const std::vector<std::string>& args,
                          const std::string& default_out, uint64_t seed) {
  ParsedArgs out;
  SweepPlan plan;
  plan.seed = seed;
  plan.out_dir = default_out;
  plan.repeat = 0;  // not given
  size_t i = 0;
  int options = 0, resume_switches = 0;
  for (; i < args.size() && out.error.empty(); ++i, ++options) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      out.help = true;
      return out;
    }
    if (SetSwitch(a, &plan, &out, &resume_switches)) continue;
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (a.starts_with("--") && i + 1 < args.size()) {
      value = args[++i];
    } else if (a.starts_with("-")) {
      out.error = a + " needs a value, or is unknown (see verbsemu sweep -h)";
      return out;
    } else {
      break;  // the command starts without "--"
    }
    if (!SetOption(name, value, &plan, &out) && out.error.empty()) {
      out.error = "unknown option '" + name + "' (see verbsemu sweep -h)";
    }
  }
  const bool repeat_given = plan.repeat != 0;
  if (out.error.empty()) {
    FinishArgs(std::vector<std::string>(args.begin() + static_cast<long>(i),
                                        args.end()),
               options - resume_switches, resume_switches > 0, repeat_given,
               std::move(plan), &out);
  }
  return out;
}

PrecisionGoal WithGiven(PrecisionGoal goal, const ParsedArgs& args) {
  if (args.precision) goal.rel = *args.precision;
  if (args.max_blocks) goal.max_blocks = *args.max_blocks;
  if (args.budget_s) goal.budget_s = *args.budget_s;
  return goal;
}

std::string GoalText(const PrecisionGoal& goal) {
  if (goal.rel <= 0) return "no --precision";
  char buf[128];
  std::snprintf(buf, sizeof buf, "--precision %g --max-blocks %d --budget ",
                goal.rel, goal.max_blocks);
  char budget[32] = "none";
  if (goal.budget_s > 0)
    std::snprintf(budget, sizeof budget, "%gs", goal.budget_s);
  return std::string(buf) + budget;
}

std::string ControlCommand(const std::string& control, double latency_ns) {
  char us[32];
  std::snprintf(us, sizeof us, "%g", latency_ns / 1000);
  const std::string ns = std::to_string(std::llround(latency_ns));
  std::string out = control;
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"{latency_ns}", ns},
        std::pair<std::string, std::string>{"{latency_us}", us}}) {
    for (size_t at = out.find(key); at != std::string::npos;
         at = out.find(key, at + value.size())) {
      out.replace(at, key.size(), value);
    }
  }
  return out;
}

std::optional<Grid> PlanGrid(const SweepPlan& plan, std::string* why) {
  std::optional<Grid> grid =
      ParseGrid(plan.latencies, plan.bandwidths, plan.durations, why);
  if (grid) EnsureBaseline(&*grid);
  return grid;
}

void Prepare(const Grid& grid, SweepPlan* plan) {
  // Each block: the application at every point, the ping-pong at every
  // latency at full bandwidth, the control at every point that adds
  // latency alone, shuffled together.
  std::vector<PlannedRun> block;
  for (size_t p = 0; p < grid.points.size(); ++p) {
    const GridPoint& point = grid.points[p];
    block.push_back({0, static_cast<int>(p), Program::kApp});
    if (!plan->pingpong.empty() && point.bandwidth_share == 1) {
      block.push_back({0, static_cast<int>(p), Program::kPingpong});
    }
    const bool latency_alone =
        point.bandwidth_share == 1 &&
        std::all_of(point.durations_ns.begin(), point.durations_ns.end(),
                    [](double d) { return d == 0; });
    if (!plan->control.empty() && latency_alone) {
      block.push_back({0, static_cast<int>(p), Program::kControl});
    }
  }
  std::mt19937_64 rng(plan->seed);
  plan->order.clear();
  for (int b = 0; b < plan->repeat; ++b) {
    // Fisher-Yates with our own draws: the order must not depend on the
    // standard library's shuffle, since plan.json keeps it for --resume.
    for (size_t k = block.size(); k > 1; --k) {
      std::swap(block[k - 1], block[rng() % k]);
    }
    for (PlannedRun r : block) {
      r.block = b;
      plan->order.push_back(r);
    }
  }
}

}  // namespace verbsemu::sweep
