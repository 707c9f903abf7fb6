// `verbsemu sweep --precision REL`: when to stop adding randomized blocks.
// After each block the sweep refits; it stops once the primary estimate's
// 95% interval has a half-width of at most REL x |estimate| (from
// goal.min_blocks on), or goal.max_blocks blocks have run, or the next
// block, at the mean time of the blocks so far, would take the runs past
// the budget. An interval that holds 0 never meets the goal.
#ifndef VERBSEMU_SWEEP_PRECISION_H_
#define VERBSEMU_SWEEP_PRECISION_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/plan.h"
#include "sweep/runs_csv.h"
#include "sweep/stats.h"

namespace verbsemu::sweep {

// The number the goal is about: c_a over the ping-pong's when the sweep
// has one, else the blocked slope against latency, else (no latency
// swept) the blocked slope against bandwidth (1/share - 1).
struct Estimate {
  bool ok = false;
  std::string name;  // "slope", "c_a", "bandwidth slope"
  std::string unit;  // "per µs", "" ...
  double value = 0;
  Interval ci;  // 95%
  double HalfWidth() const { return (ci.hi - ci.lo) / 2; }
  bool HoldsZero() const { return ci.lo <= 0 && ci.hi >= 0; }
  // Its half-width over |value|.
  double Relative() const;
};

Estimate PrimaryEstimate(const Analysis& a);

// The blocked slope alone, as a PrimaryEstimate of a latency sweep.
Estimate SlopeEstimate(const BlockedFit& f);

// The runs' wall time so far and the next block's, from the mean of the
// blocks recorded.
struct BlockTime {
  int blocks = 0;
  double spent_s = 0;
  double next_s = 0;
};
BlockTime TimeOfBlocks(const std::vector<RunRecord>& records);

enum class Stop { kNo, kPrecision, kMaxBlocks, kBudget };

// After `blocks` whole blocks; always kNo before goal.min_blocks.
Stop Decide(const PrecisionGoal& goal, const Estimate& e, int blocks,
            const BlockTime& time);

// With --precision, after the plan's blocks (plan.repeat): the estimate,
// the time, and whether to stop.
Stop Judge(const SweepPlan& plan, const Analysis& a,
           const std::vector<RunRecord>& records, Estimate* e, BlockTime* t);

// sweep.json's "precision" (null without --precision), and the line that
// says why the sweep stopped ("" when it has not).
nlohmann::json Outcome(const SweepPlan& plan, const Analysis& a,
                       const std::vector<RunRecord>& records, Stop stop,
                       std::string* line);

// The goal a --resume asks for (the plan's, changed by what `args`
// give); "" or one line that refuses it (a change without --force).
std::string ResumeGoal(const SweepPlan& plan, const ParsedArgs& args,
                       PrecisionGoal* goal);

// The line shown after each block, and the one that says why it stopped
// (neither with a newline).
std::string BlockLine(const PrecisionGoal& goal, const Estimate& e, int blocks);
std::string StopLine(Stop why, const PrecisionGoal& goal, const Estimate& e,
                     const BlockTime& time);

// sweep.json's "precision": the goal, the blocks, why it stopped
// ("precision", "max_blocks", "budget", or null: not yet) and the
// estimate.
nlohmann::json PrecisionJson(Stop why, const PrecisionGoal& goal,
                             const Estimate& e, int blocks);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PRECISION_H_
