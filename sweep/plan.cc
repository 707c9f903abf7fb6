#include "sweep/plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include "emulate/units.h"
#include "sweep/metric.h"
#include "sweep/precision_options.h"

namespace verbsemu::sweep {
namespace {

using Json = nlohmann::json;

const DurationAxis* FindAxis(const std::string& flag) {
  for (const DurationAxis& a : kDurationAxes) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

std::string PlanKey(const DurationAxis& a) { return std::string(a.name) + "s"; }

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

namespace {

Json GoalJson(const PrecisionGoal& g) {
  if (g.rel <= 0) return nullptr;
  return {{"rel", g.rel},
          {"min_blocks", g.min_blocks},
          {"max_blocks", g.max_blocks},
          {"budget_s", g.budget_s}};
}

}  // namespace

std::string PlanToJson(const SweepPlan& plan) {
  Json order = Json::array();
  for (const PlannedRun& r : plan.order) {
    order.push_back({r.block, r.point, static_cast<int>(r.program)});
  }
  Json j = {{"version", 1},
            {"latencies", plan.latencies},
            {"bandwidths", plan.bandwidths},
            {"bw_mode", plan.bw_mode},
            {"repeat", plan.repeat},
            {"precision", GoalJson(plan.precision)},
            {"seed", plan.seed},
            {"metric", plan.metric},
            {"metric_file", plan.metric_file},
            {"metric_name", plan.metric_name},
            {"metric_unit", plan.metric_unit},
            {"command", plan.command},
            {"pingpong", plan.pingpong},
            {"control", plan.control},
            {"plot", plan.plot},
            {"timeout_s", plan.timeout_s},
            {"allow_unemulated", plan.allow_unemulated},
            {"shim",
             {{"path", plan.shim_path},
              {"version", plan.shim_version},
              {"digest", plan.shim_digest}}},
            {"order", order}};
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    j[PlanKey(kDurationAxes[i])] =
        plan.durations[i].empty() ? "0" : plan.durations[i];
  }
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// A whole number of type T, or an exception: nlohmann's get<int>() of
// 2.3e69 is undefined behaviour (found by files_fuzz).
template <typename T>
T Whole(const Json& v) {
  if (!v.is_number_integer()) throw std::invalid_argument("not whole");
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      throw std::out_of_range("too large");
    }
    return static_cast<T>(u);
  }
  const auto i = v.get<int64_t>();
  if (i < 0 && !std::numeric_limits<T>::is_signed) {
    throw std::out_of_range("negative");
  }
  if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      (i > 0 && static_cast<uint64_t>(i) >
                    static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
    throw std::out_of_range("out of range");
  }
  return static_cast<T>(i);
}

// null (a fixed sweep, or a plan of an older version) or the goal;
// throws on a goal that makes no sense.
PrecisionGoal GoalFromJson(const Json& j) {
  PrecisionGoal g;
  if (j.is_null()) return g;
  g.rel = j.at("rel");
  g.min_blocks = Whole<int>(j.at("min_blocks"));
  g.max_blocks = Whole<int>(j.at("max_blocks"));
  g.budget_s = j.at("budget_s");
  if (!(g.rel > 0 && g.rel < 1) || g.min_blocks < 1 ||
      g.max_blocks < g.min_blocks || !(g.budget_s >= 0)) {
    throw std::invalid_argument("bad precision");
  }
  return g;
}

}  // namespace

std::optional<SweepPlan> PlanFromJson(const std::string& text,
                                      std::string* why) {
  const Json j = Json::parse(text, nullptr, false);
  SweepPlan plan;
  try {
    if (j.is_discarded() || j.at("version") != 1) throw std::exception();
    plan.latencies = j.at("latencies");
    plan.bandwidths = j.at("bandwidths");
    plan.bw_mode = j.at("bw_mode");
    plan.repeat = Whole<int>(j.at("repeat"));
    plan.precision = GoalFromJson(j.value("precision", Json()));
    plan.seed = Whole<uint64_t>(j.at("seed"));
    plan.metric = j.at("metric");
    plan.metric_file = j.at("metric_file");
    plan.metric_name = j.value("metric_name", "");
    plan.metric_unit = j.value("metric_unit", "");
    plan.command = j.at("command").get<std::vector<std::string>>();
    plan.pingpong = j.at("pingpong");
    plan.control = j.value("control", "");  // not in older plans
    plan.plot = j.at("plot");
    plan.timeout_s = j.at("timeout_s");
    // Not in the plans of older versions.
    plan.allow_unemulated = j.value("allow_unemulated", false);
    for (size_t i = 0; i < kDurationAxisCount; ++i) {
      plan.durations[i] = j.value(PlanKey(kDurationAxes[i]), "0");
    }
    const Json shim = j.value("shim", Json::object());
    plan.shim_path = shim.value("path", "");
    plan.shim_version = shim.value("version", "");
    plan.shim_digest = shim.value("digest", "");
    for (const Json& r : j.at("order")) {
      const int kind = Whole<int>(r.at(2));
      if (kind < 0 || kind >= static_cast<int>(std::size(kProgramNames))) {
        throw std::out_of_range("run kind");
      }
      plan.order.push_back({Whole<int>(r.at(0)), Whole<int>(r.at(1)),
                            static_cast<Program>(kind)});
    }
  } catch (const std::exception&) {
    *why = "plan.json is not a plan this version of verbsemu sweep wrote";
    return std::nullopt;
  }
  return plan;
}

}  // namespace verbsemu::sweep
