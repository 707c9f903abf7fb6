#include "sweep/precision.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "sweep/blocked_fit.h"

namespace verbsemu::sweep {
namespace {

Estimate Slope(double value, double lo, double hi) {
  return {true, "slope", "per µs", value, {lo, hi}};
}

PrecisionGoal Goal(double rel, int min_blocks, int max_blocks,
                   double budget_s = 0) {
  return {rel, min_blocks, max_blocks, budget_s};
}

TEST(PrecisionTest, StopsWhenTheHalfWidthIsWithinTheGoalFromTheMinimumOn) {
  const PrecisionGoal goal = Goal(0.05, 3, 20);
  const Estimate narrow = Slope(2.5, 2.4, 2.6);  // ±4%
  EXPECT_EQ(Decide(goal, narrow, 2, {}), Stop::kNo);
  EXPECT_EQ(Decide(goal, narrow, 3, {}), Stop::kPrecision);
  EXPECT_EQ(Decide(goal, Slope(2.5, 2.3, 2.7), 3, {}), Stop::kNo);  // ±8%
  EXPECT_EQ(Decide(goal, Slope(-2.5, -2.6, -2.4), 3, {}), Stop::kPrecision);
  EXPECT_EQ(Decide(goal, Slope(2.5, 2.3, 2.7), 20, {}), Stop::kMaxBlocks);
  EXPECT_EQ(Decide(goal, Estimate{}, 19, {}), Stop::kNo);
}

// An interval that holds 0 never meets the goal, however narrow relative
// to a wide goal: the sweep goes on to --max-blocks.
TEST(PrecisionTest, AnIntervalHoldingZeroNeverMeetsTheGoal) {
  const PrecisionGoal goal = Goal(0.9, 3, 6);
  const Estimate flat = Slope(1, -0.1, 1.5);  // half-width 0.8 of it
  EXPECT_EQ(Decide(goal, flat, 5, {}), Stop::kNo);
  EXPECT_EQ(Decide(goal, flat, 6, {}), Stop::kMaxBlocks);
  const BlockTime t{6, 60, 10};
  EXPECT_EQ(StopLine(Stop::kMaxBlocks, goal, flat, t),
            "the slope is not distinguishable from 0 after 6 blocks: [-0.1, "
            "1.5]; stopped at --max-blocks 6");
}

TEST(PrecisionTest, TheBudgetStopsBeforeABlockThatWouldPassIt) {
  const PrecisionGoal goal = Goal(0.05, 3, 20, 100);
  const Estimate wide = Slope(2.5, 2, 3);
  EXPECT_EQ(Decide(goal, wide, 4, {4, 80, 20}), Stop::kNo);  // ends at 100
  EXPECT_EQ(Decide(goal, wide, 4, {4, 81, 20.25}), Stop::kBudget);
  // The first blocks run whatever the budget: it stops adding blocks.
  EXPECT_EQ(Decide(goal, wide, 2, {2, 120, 60}), Stop::kNo);
  EXPECT_EQ(Decide(goal, wide, 3, {3, 180, 60}), Stop::kBudget);
  EXPECT_EQ(StopLine(Stop::kBudget, goal, wide, {4, 81, 20.25}),
            "stopped by --budget 100 s: the next block (about 20.25 s) would "
            "pass it, with 81 s spent after 4 blocks: the slope's 95% CI is "
            "±20% of it, short of the goal ±5%: slope +2.5 per µs (95% CI 2 "
            ".. 3)");
}

// The goal is about c_a when a ping-pong normalises it, else the latency
// slope, else (no latency swept) the bandwidth slope.
TEST(PrecisionTest, TheEstimateIsCaThenTheLatencySlopeThenBandwidth) {
  Analysis a;
  EXPECT_FALSE(PrimaryEstimate(a).ok);
  a.bandwidth_blocked.ok = true;
  a.bandwidth_blocked.slope = 4;
  EXPECT_EQ(PrimaryEstimate(a).name, "bandwidth slope");
  EXPECT_EQ(PrimaryEstimate(a).value, 4);
  a.latency_blocked.ok = true;
  a.latency_blocked.slope = 2;
  a.latency_blocked.slope_ci = {1.9, 2.1};
  EXPECT_EQ(PrimaryEstimate(a).name, "slope");
  EXPECT_NEAR(PrimaryEstimate(a).Relative(), 0.05, 1e-12);
  a.c_a = {true, 1.5, {1, 2}};
  EXPECT_EQ(PrimaryEstimate(a).name, "c_a");
  EXPECT_NEAR(PrimaryEstimate(a).Relative(), 1.0 / 3, 1e-12);
}

TEST(PrecisionTest, TheTimeOfTheBlocksIsTheRunsWallTime) {
  std::vector<RunRecord> runs(6);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].block = static_cast<int>(i / 2);
    runs[i].wall_s = 1.5;
  }
  const BlockTime t = TimeOfBlocks(runs);
  EXPECT_EQ(t.blocks, 3);
  EXPECT_DOUBLE_EQ(t.spent_s, 9);
  EXPECT_DOUBLE_EQ(t.next_s, 3);
}

TEST(PrecisionTest, TheLinesSayWhereTheEstimateStands) {
  const PrecisionGoal goal = Goal(0.05, 3, 20);
  EXPECT_EQ(BlockLine(goal, Slope(2.5, 2.4, 2.6), 4),
            "block 4 (of at most 20): slope +2.5 per µs (95% CI 2.4 .. 2.6), "
            "±4% of it; goal ±5%");
  EXPECT_EQ(BlockLine(goal, Slope(0.1, -0.2, 0.4), 3),
            "block 3 (of at most 20): slope +0.1 per µs (95% CI -0.2 .. 0.4), "
            "not distinguishable from 0 yet; goal ±5%");
  EXPECT_EQ(StopLine(Stop::kPrecision, goal, Slope(2.5, 2.4, 2.6), {5, 10, 2}),
            "precision reached after 5 blocks: the slope's 95% CI is ±4% of "
            "it, within the goal ±5%: slope +2.5 per µs (95% CI 2.4 .. 2.6)");
  const nlohmann::json j =
      PrecisionJson(Stop::kMaxBlocks, goal, Slope(2.5, 2.3, 2.7), 20);
  EXPECT_EQ(j["stopped"], "max_blocks");
  EXPECT_EQ(j["blocks"], 20);
  EXPECT_TRUE(j["budget_s"].is_null());
  EXPECT_NEAR(j["estimate"]["relative_half_width"].get<double>(), 0.08, 1e-9);
}

// One block of the fake command of blocked_fit_test: metric = 50 + 2.5 x,
// x in {0,1,2,5,10} µs, the block offset by up to ±30% of the effect,
// Gaussian noise of SD `sd`, a run in 20 stalled at 3x its value.
void AddBlock(std::mt19937_64& rng, double sd, int b, std::vector<double>* x,
              std::vector<double>* y, std::vector<int>* block) {
  constexpr double kSlope = 2.5, kEffect = kSlope * 10;
  std::uniform_real_distribution<double> drift(-0.3 * kEffect, 0.3 * kEffect);
  std::normal_distribution<double> noise(0, sd);
  std::uniform_int_distribution<int> stall(0, 19);
  const double offset = drift(rng);
  for (double g : {0.0, 1.0, 2.0, 5.0, 10.0}) {
    const double v = 50 + kSlope * g + offset + noise(rng);
    x->push_back(g);
    y->push_back(stall(rng) == 0 ? 3 * v : v);
    block->push_back(b);
  }
}

// Sequential stopping looks at the interval after every block and stops
// on the first narrow one, which favours intervals that came out narrow
// by chance: the stopped sweeps' intervals must still cover the truth.
// The figure docs/sweep.md quotes: bazel test //sweep:precision_test
// --test_output=all --test_filter='*Coverage*'.
TEST(PrecisionTest, CoverageOfTheIntervalsTheStoppingRuleEndsOn) {
  constexpr int kSeeds = 400;
  constexpr double kSd = 1;
  const PrecisionGoal goal = Goal(0.05, 3, 20);
  int covered = 0, reached = 0, blocks = 0, fixed_covered = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    std::vector<double> x, y;
    std::vector<int> block;
    Stop stop = Stop::kNo;
    BlockedFit f;
    int b = 0;
    while (stop == Stop::kNo) {
      AddBlock(rng, kSd, b++, &x, &y, &block);
      f = FitBlocked(x, y, block);
      stop = Decide(goal, SlopeEstimate(f), b, {});
    }
    covered += f.slope_ci.lo <= 2.5 && 2.5 <= f.slope_ci.hi;
    reached += stop == Stop::kPrecision;
    blocks += b;
    // The same noise, a fixed 8 blocks: the interval without stopping.
    while (b < 8) AddBlock(rng, kSd, b++, &x, &y, &block);
    const size_t n = 8 * 5;
    const BlockedFit fixed =
        FitBlocked({x.begin(), x.begin() + n}, {y.begin(), y.begin() + n},
                   {block.begin(), block.begin() + n});
    fixed_covered += fixed.slope_ci.lo <= 2.5 && 2.5 <= fixed.slope_ci.hi;
  }
  std::printf(
      "--precision 0.05 (3..20 blocks), noise SD %.3g, drift, 1 run in 20 "
      "stalled: the final 95%% CI covers the true slope in %d of %d sweeps "
      "(%.1f%%); goal reached in %d, %.1f blocks on average; 8 fixed "
      "blocks cover in %d of %d\n",
      kSd, covered, kSeeds, 100.0 * covered / kSeeds, reached,
      static_cast<double>(blocks) / kSeeds, fixed_covered, kSeeds);
  EXPECT_GE(covered, kSeeds * 90 / 100);
  EXPECT_GE(reached, kSeeds * 90 / 100);  // the goal is within reach
}

}  // namespace
}  // namespace verbsemu::sweep
