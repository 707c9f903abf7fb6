#include "sweep/precision.h"

#include <cmath>
#include <map>

#include "sweep/internal/format.h"

namespace verbsemu::sweep {
namespace {

using internal::Fmt;
using Json = nlohmann::json;

std::string Percent(double rel) { return "±" + Fmt("%.3g%%", rel * 100); }

// "slope +2.5 per µs (95% CI 2.4 .. 2.6)"
std::string ValueText(const Estimate& e) {
  return e.name + " " + Fmt("%+.4g", e.value) +
         (e.unit.empty() ? "" : " " + e.unit) + " (95% CI " +
         Fmt("%.4g", e.ci.lo) + " .. " + Fmt("%.4g", e.ci.hi) + ")";
}

// "the slope's 95% CI is ±7.1% of it, short of the goal ±5%"
std::string WidthText(const PrecisionGoal& goal, const Estimate& e) {
  return "the " + e.name + "'s 95% CI is " + Percent(e.Relative()) +
         " of it, " + (e.Relative() <= goal.rel ? "within" : "short of") +
         " the goal " + Percent(goal.rel);
}

std::string Seconds(double s) { return Fmt("%.4g s", s); }

const char* StopName(Stop why) {
  switch (why) {
    case Stop::kPrecision:
      return "precision";
    case Stop::kMaxBlocks:
      return "max_blocks";
    case Stop::kBudget:
      return "budget";
    case Stop::kNo:
      break;
  }
  return nullptr;
}

}  // namespace

double Estimate::Relative() const {
  return value == 0 ? INFINITY : HalfWidth() / std::fabs(value);
}

Estimate SlopeEstimate(const BlockedFit& f) {
  Estimate e;
  e.ok = f.ok;
  e.name = "slope";
  e.unit = "per µs";
  e.value = f.slope;
  e.ci = f.slope_ci;
  return e;
}

Estimate PrimaryEstimate(const Analysis& a) {
  if (a.c_a.ok) {
    return {true, "c_a", "", a.c_a.value, a.c_a.ci};
  }
  if (a.latency_blocked.ok || !a.bandwidth_blocked.ok) {
    return SlopeEstimate(a.latency_blocked);
  }
  const BlockedFit& f = a.bandwidth_blocked;
  return {true, "bandwidth slope", "per unit of 1/share - 1", f.slope,
          f.slope_ci};
}

BlockTime TimeOfBlocks(const std::vector<RunRecord>& records) {
  std::map<int, double> per_block;
  BlockTime t;
  for (const RunRecord& r : records) {
    per_block[r.block] += r.wall_s;
    t.spent_s += r.wall_s;
  }
  t.blocks = static_cast<int>(per_block.size());
  if (t.blocks > 0) t.next_s = t.spent_s / t.blocks;
  return t;
}

Stop Decide(const PrecisionGoal& goal, const Estimate& e, int blocks,
            const BlockTime& time) {
  if (blocks < goal.min_blocks) return Stop::kNo;  // nothing judged yet
  if (e.ok && !e.HoldsZero() && e.Relative() <= goal.rel) {
    return Stop::kPrecision;
  }
  if (blocks >= goal.max_blocks) return Stop::kMaxBlocks;
  if (goal.budget_s > 0 && time.spent_s + time.next_s > goal.budget_s) {
    return Stop::kBudget;
  }
  return Stop::kNo;
}

std::string BlockLine(const PrecisionGoal& goal, const Estimate& e,
                      int blocks) {
  std::string out = "block " + std::to_string(blocks) + " (of at most " +
                    std::to_string(goal.max_blocks) + "): ";
  if (!e.ok) return out + "no estimate yet";
  out += ValueText(e) + ", ";
  out += e.HoldsZero() ? "not distinguishable from 0 yet"
                       : Percent(e.Relative()) + " of it";
  return out + "; goal " + Percent(goal.rel);
}

std::string StopLine(Stop why, const PrecisionGoal& goal, const Estimate& e,
                     const BlockTime& time) {
  const std::string after = std::to_string(time.blocks) + " blocks";
  const std::string cause =
      why == Stop::kBudget
          ? "stopped by --budget " + Seconds(goal.budget_s) +
                ": the next block (about " + Seconds(time.next_s) +
                ") would pass it, with " + Seconds(time.spent_s) + " spent"
          : "stopped at --max-blocks " + std::to_string(goal.max_blocks);
  if (why == Stop::kPrecision) {
    return "precision reached after " + after + ": " + WidthText(goal, e) +
           ": " + ValueText(e);
  }
  if (!e.ok) return cause + ": no estimate (no valid runs to fit)";
  if (e.HoldsZero()) {
    return "the " + e.name + " is not distinguishable from 0 after " + after +
           ": [" + Fmt("%.4g", e.ci.lo) + ", " + Fmt("%.4g", e.ci.hi) + "]; " +
           cause;
  }
  return cause + " after " + after + ": " + WidthText(goal, e) + ": " +
         ValueText(e);
}

Json PrecisionJson(Stop why, const PrecisionGoal& goal, const Estimate& e,
                   int blocks) {
  const char* stopped = StopName(why);
  Json estimate = nullptr;
  if (e.ok) {
    estimate = {{"name", e.name},
                {"unit", e.unit},
                {"value", e.value},
                {"ci", {e.ci.lo, e.ci.hi}},
                {"relative_half_width",
                 std::isfinite(e.Relative()) ? Json(e.Relative()) : Json()}};
  }
  return {{"rel", goal.rel},
          {"min_blocks", goal.min_blocks},
          {"max_blocks", goal.max_blocks},
          {"budget_s", goal.budget_s > 0 ? Json(goal.budget_s) : Json()},
          {"blocks", blocks},
          {"stopped", stopped ? Json(stopped) : Json()},
          {"estimate", estimate}};
}

Stop Judge(const SweepPlan& plan, const Analysis& a,
           const std::vector<RunRecord>& records, Estimate* e, BlockTime* t) {
  *e = PrimaryEstimate(a);
  *t = TimeOfBlocks(records);
  t->blocks = plan.repeat;
  return Decide(plan.precision, *e, plan.repeat, *t);
}

Json Outcome(const SweepPlan& plan, const Analysis& a,
             const std::vector<RunRecord>& records, Stop stop,
             std::string* line) {
  line->clear();
  if (plan.precision.rel <= 0) return nullptr;
  Estimate e;
  BlockTime t;
  Judge(plan, a, records, &e, &t);
  if (stop != Stop::kNo) *line = StopLine(stop, plan.precision, e, t);
  return PrecisionJson(stop, plan.precision, e, plan.repeat);
}

std::string ResumeGoal(const SweepPlan& plan, const ParsedArgs& args,
                       PrecisionGoal* goal) {
  *goal = plan.precision;
  if (!args.precision && !args.max_blocks && !args.budget_s) return "";
  if (goal->rel <= 0) goal->min_blocks = plan.repeat;
  *goal = WithGiven(*goal, args);
  if (*goal == plan.precision) return "";
  if (goal->rel <= 0)
    return "--max-blocks and --budget go with --precision REL";
  if (goal->max_blocks < goal->min_blocks) {
    return "--max-blocks " + std::to_string(goal->max_blocks) +
           " is below the " + std::to_string(goal->min_blocks) +
           " blocks run before the interval is judged";
  }
  if (args.force) return "";
  return plan.out_dir + " was started with " + GoalText(plan.precision) +
         "; this asks for " + GoalText(*goal) + ": --force to change it";
}

}  // namespace verbsemu::sweep
