// What a sweep is asked to do (`verbsemu sweep` flags), and the order its
// runs take. Kept in DIR/plan.json so that --resume DIR continues the very
// same sweep: same grid, same metric, same command, same order.
#ifndef VERBSEMU_SWEEP_PLAN_H_
#define VERBSEMU_SWEEP_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/grid.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {

struct PlannedRun {
  int block = 0;
  int point = 0;  // index into the grid
  Program program = Program::kApp;
};

// --precision: blocks are added one at a time until the primary
// estimate's 95% interval is within `rel` of it (half-width <= rel x
// |estimate|), or `max_blocks` have run, or the next block would take the
// runs past `budget_s` (the sum of their wall times; 0: no budget).
struct PrecisionGoal {
  double rel = 0;      // 0: a fixed --repeat sweep
  int min_blocks = 3;  // run before the interval is judged
  int max_blocks = 20;
  double budget_s = 0;
  bool operator==(const PrecisionGoal&) const = default;
};

struct SweepPlan {
  std::string latencies = "0";  // as given
  std::string bandwidths;       // "" means 100%
  std::string bw_mode = "pad";
  DurationTexts durations;  // per kDurationAxes row, as given; "": "0"
  int repeat = 5;           // blocks planned (with --precision: so far)
  PrecisionGoal precision;
  uint64_t seed = 0;
  std::string metric = "runtime";
  std::string metric_file;
  std::string metric_name, metric_unit;  // labels; "" derives them
  std::vector<std::string> command;
  std::string pingpong;  // a shell command line; "" for none
  // A shell command line with {latency_ns} or {latency_us} in it, run at
  // each latency without the shim: a program that waits that long on its
  // own (ControlCommand); "" for none.
  std::string control;
  std::string out_dir;
  bool plot = true;
  double timeout_s = kDefaultTimeoutS;  // per run; 0: none
  // A pilot run with no shim report is refused unless this is set.
  bool allow_unemulated = false;
  // Which shim ran the sweep: --resume refuses another without --force.
  std::string shim_path, shim_version, shim_digest;
  std::vector<PlannedRun> order;  // filled by Prepare()

  static constexpr double kDefaultTimeoutS = 3600;
};

struct ParsedArgs {
  std::optional<SweepPlan> plan;  // a new sweep
  std::string resume_dir;         // or --resume DIR
  bool force = false;             // --resume with another shim build
  bool retry_failed = false;      // --resume runs failed runs again
  bool help = false;
  // --precision, --max-blocks, --budget as given (a new sweep's are also
  // in plan->precision); --resume DIR may change them with --force.
  std::optional<double> precision, budget_s;
  std::optional<int> max_blocks;
  std::string error;  // one line; exit 2
};

// `goal` with what `args` gives; its min_blocks is left alone.
PrecisionGoal WithGiven(PrecisionGoal goal, const ParsedArgs& args);

// "--precision 0.05 --max-blocks 20 --budget none", or "no --precision".
std::string GoalText(const PrecisionGoal& goal);

// The --control command line for a point `latency_ns` one way: every
// {latency_ns} replaced by the whole nanoseconds, every {latency_us} by the
// microseconds ("2.5").
std::string ControlCommand(const std::string& control, double latency_ns);

// argv after "sweep", against SweepOptions() (sweep/options.h): the flags,
// then the command after "--" or from its first word. `default_out` is the
// output directory unless --out gives one; `seed` the seed unless --seed.
ParsedArgs ParseSweepArgs(const std::vector<std::string>& args,
                          const std::string& default_out, uint64_t seed);

// The grid (baseline included) and the run order of `plan`; nullopt and
// one line in `why` for bad values.
std::optional<Grid> PlanGrid(const SweepPlan& plan, std::string* why);
void Prepare(const Grid& grid, SweepPlan* plan);

std::string PlanToJson(const SweepPlan& plan);
std::optional<SweepPlan> PlanFromJson(const std::string& text,
                                      std::string* why);

// --help: the usage, SweepOptions() and what a signal does.
std::string SweepUsage();

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PLAN_H_
