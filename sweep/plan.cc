#include "sweep/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>

namespace verbsemu::sweep {

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
