#include "sweep/plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace verbsemu::sweep {
namespace {

TEST(PlanTest, FlagsAndTheCommand) {
  const ParsedArgs p = ParseSweepArgs(
      {"--latency=0,2us", "--bandwidth", "100%,50%", "--bw-mode", "pace",
       "--repeat", "3", "--metric", "regex:t=([0-9]+)", "--pingpong",
       "ib_send_lat -n 100", "--", "mpirun", "-np", "2", "./app"},
      "out", 9);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_EQ(p.plan->latencies, "0,2us");
  EXPECT_EQ(p.plan->bw_mode, "pace");
  EXPECT_EQ(p.plan->repeat, 3);
  EXPECT_EQ(p.plan->seed, 9u);
  EXPECT_EQ(p.plan->out_dir, "out");
  EXPECT_EQ(p.plan->command,
            (std::vector<std::string>{"mpirun", "-np", "2", "./app"}));
  // Without "--" the command starts at the first word that is no flag.
  const ParsedArgs q =
      ParseSweepArgs({"--latency", "1us", "./app", "-v"}, "o", 1);
  ASSERT_TRUE(q.plan) << q.error;
  EXPECT_EQ(q.plan->command, (std::vector<std::string>{"./app", "-v"}));
}

// As ever: a value is taken as given, even one that looks like a flag; a
// flag given twice counts the last time; a command's own flags are its own.
TEST(PlanTest, ValuesAndRepeatsReadAsTheyAlwaysDid) {
  const ParsedArgs p = ParseSweepArgs(
      {"--metric-name", "-h", "--latency", "0", "--latency=0,1us", "--no-plot",
       "--no-plot", "--bandwidth=", "--metric-unit", "--x=", "./app",
       "--latency", "5us", "-h"},
      "o", 1);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_FALSE(p.help);
  EXPECT_EQ(p.plan->metric_name, "-h");
  EXPECT_EQ(p.plan->metric_unit, "--x=");
  EXPECT_EQ(p.plan->latencies, "0,1us");
  EXPECT_EQ(p.plan->bandwidths, "");
  EXPECT_FALSE(p.plan->plot);
  EXPECT_EQ(p.plan->command,
            (std::vector<std::string>{"./app", "--latency", "5us", "-h"}));
  // Flags are named in full.
  const ParsedArgs abbreviated =
      ParseSweepArgs({"--lat", "1us", "--", "./app"}, "o", 1);
  EXPECT_FALSE(abbreviated.plan);
  EXPECT_EQ(abbreviated.error,
            "unrecognised option '--lat' (see verbsemu sweep -h)");
}

TEST(PlanTest, LogGpAxesAreOptionsKeptInThePlan) {
  ParsedArgs p = ParseSweepArgs({"--overhead", "0,1us", "--recv-overhead=0,2us",
                                 "--gap", "0,250ns", "--", "./app"},
                                "o", 1);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_EQ(p.plan->durations, (DurationTexts{"0,1us", "0,2us", "0,250ns"}));
  std::string why;
  const auto grid = PlanGrid(*p.plan, &why);
  ASSERT_TRUE(grid) << why;
  EXPECT_EQ(grid->points.size(), 8u);
  const nlohmann::json j = nlohmann::json::parse(PlanToJson(*p.plan));
  EXPECT_EQ(j["overheads"], "0,1us");
  EXPECT_EQ(j["recv_overheads"], "0,2us");
  EXPECT_EQ(j["gaps"], "0,250ns");
  const auto back = PlanFromJson(PlanToJson(*p.plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->durations, p.plan->durations);
  // A plan written before these axes: none swept.
  nlohmann::json old = j;
  for (const char* key : {"overheads", "recv_overheads", "gaps"}) {
    old.erase(key);
  }
  const auto older = PlanFromJson(old.dump(), &why);
  ASSERT_TRUE(older) << why;
  EXPECT_EQ(older->durations, (DurationTexts{"0", "0", "0"}));
  EXPECT_NE(SweepUsage().find("--recv-overhead LIST"), std::string::npos);
  const ParsedArgs bad = ParseSweepArgs({"--gap", "1xs", "--", "./a"}, "o", 1);
  EXPECT_NE(bad.error.find("--gap: VERBSEMU_GAP='1xs'"), std::string::npos)
      << bad.error;
}

// A run that hangs must not hold the sweep forever: a real default, shown
// in the usage and kept in plan.json.
TEST(PlanTest, ARunHasATimeoutByDefault) {
  const ParsedArgs p = ParseSweepArgs({"--", "./app"}, "o", 1);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_EQ(p.plan->timeout_s, 3600);
  EXPECT_NE(SweepUsage().find("default 1h"), std::string::npos);
  std::string why;
  EXPECT_EQ(PlanFromJson(PlanToJson(*p.plan), &why)->timeout_s, 3600) << why;
  const ParsedArgs none =
      ParseSweepArgs({"--timeout", "none", "--", "./app"}, "o", 1);
  ASSERT_TRUE(none.plan) << none.error;
  EXPECT_EQ(none.plan->timeout_s, 0);
}

TEST(PlanTest, ResumeTakesItsTwoSwitchesAndNothingElse) {
  const ParsedArgs p =
      ParseSweepArgs({"--resume", "d", "--retry-failed", "--force"}, "o", 1);
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_TRUE(p.retry_failed);
  EXPECT_TRUE(p.force);
  EXPECT_FALSE(ParseSweepArgs({"--force", "--", "./app"}, "o", 1).plan);
}

TEST(PlanTest, ThePlanKeepsTheShimBuildAndTheEmulationCheck) {
  SweepPlan plan;
  plan.command = {"./app"};
  plan.shim_path = "/opt/libverbsemu.so";
  plan.shim_version = "v1-3-gabc";
  plan.shim_digest = "0123";
  plan.allow_unemulated = true;
  std::string why;
  const auto back = PlanFromJson(PlanToJson(plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->shim_path, plan.shim_path);
  EXPECT_EQ(back->shim_version, plan.shim_version);
  EXPECT_EQ(back->shim_digest, plan.shim_digest);
  EXPECT_TRUE(back->allow_unemulated);
}

TEST(PlanTest, RefusalsAreOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--latency", "0,1us"},
           {"--repeat", "-1", "--", "a"},
           {"--metric", "json:/a", "--", "a"},
           {"--resume", "d", "--latency", "1us"},
           {"--latency"}}) {
    const ParsedArgs p = ParseSweepArgs(args, "o", 1);
    EXPECT_FALSE(p.plan) << args[0];
    EXPECT_FALSE(p.error.empty()) << args[0];
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
  EXPECT_EQ(ParseSweepArgs({"--resume=d"}, "o", 1).resume_dir, "d");
  EXPECT_FALSE(ParseSweepArgs({"--timeout", "10", "--", "a"}, "o", 1).plan);
  const ParsedArgs t = ParseSweepArgs({"--timeout=300s", "--", "a"}, "o", 1);
  ASSERT_TRUE(t.plan) << t.error;
  EXPECT_DOUBLE_EQ(t.plan->timeout_s, 300);
}

// The plan of `args` (seed 5) and its grid, its order prepared; a test
// failure when either is refused.
std::pair<SweepPlan, Grid> Prepared(const std::vector<std::string>& args) {
  const ParsedArgs p = ParseSweepArgs(args, "o", 5);
  EXPECT_TRUE(p.plan) << p.error;
  SweepPlan plan = p.plan.value_or(SweepPlan{});
  std::string why;
  const std::optional<Grid> grid = PlanGrid(plan, &why);
  EXPECT_TRUE(grid) << why;
  if (grid) Prepare(*grid, &plan);
  return {plan, grid.value_or(Grid{})};
}

TEST(PlanTest, BlocksHoldEveryRunOnceAndTheBaselineIsAdded) {
  auto [plan, g] = Prepared(
      {"--latency", "1us,2us", "--repeat", "4", "--pingpong", "pp", "--", "a"});
  const Grid* grid = &g;
  std::string why;
  ASSERT_EQ(grid->points.size(), 3u);
  EXPECT_TRUE(grid->points[0].baseline());
  ASSERT_EQ(plan.order.size(), 4u * 6);  // 3 points, app and ping-pong
  for (int b = 0; b < 4; ++b) {
    std::set<std::pair<int, Program>> seen;
    for (size_t i = b * 6u; i < (b + 1) * 6u; ++i) {
      EXPECT_EQ(plan.order[i].block, b);
      seen.insert({plan.order[i].point, plan.order[i].program});
    }
    EXPECT_EQ(seen.size(), 6u);
  }
  SweepPlan other = plan;
  other.seed = 6;
  Prepare(*grid, &other);
  bool differs = false;
  for (size_t i = 0; i < plan.order.size(); ++i) {
    differs |= plan.order[i].point != other.order[i].point;
  }
  EXPECT_TRUE(differs);
  const auto back = PlanFromJson(PlanToJson(plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(PlanToJson(*back), PlanToJson(plan));
  EXPECT_FALSE(PlanFromJson("{\"version\": 2}", &why));
  EXPECT_FALSE(PlanFromJson("not json", &why));
}

// --control: at every point that adds latency alone (not at a narrowed
// bandwidth), once per block, kept in plan.json with its kind; its command
// needs a placeholder for the wait.
TEST(PlanTest, TheControlRunsAtEveryLatencyAloneAndIsKept) {
  const auto [plan, g] =
      Prepared({"--latency", "1us,2us", "--bandwidth", "100%,50%", "--repeat",
                "2", "--control", "app --wait {latency_us}us", "--", "a"});
  const Grid* grid = &g;
  std::string why;
  std::set<int> control_points;
  int controls = 0;
  for (const PlannedRun& r : plan.order) {
    if (r.program != Program::kControl) continue;
    ++controls;
    control_points.insert(r.point);
    EXPECT_EQ(grid->points[static_cast<size_t>(r.point)].bandwidth_share, 1);
  }
  EXPECT_EQ(controls, 2 * 3);  // 0, 1us and 2us at 100%, in 2 blocks
  EXPECT_EQ(control_points.size(), 3u);
  const auto back = PlanFromJson(PlanToJson(plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->control, plan.control);
  EXPECT_EQ(PlanToJson(*back), PlanToJson(plan));
  EXPECT_EQ(ControlCommand("w {latency_ns} {latency_us} {latency_ns}", 2500),
            "w 2500 2.5 2500");
  const ParsedArgs bad =
      ParseSweepArgs({"--control", "app --wait 5", "--", "a"}, "o", 1);
  EXPECT_FALSE(bad.plan);
  EXPECT_NE(bad.error.find("{latency_ns} or {latency_us}"), std::string::npos)
      << bad.error;
}

// --metric-name and --metric-unit label the tables and plots, and survive
// --resume; a plan.json from before them reads as "derive them".
TEST(PlanTest, MetricNameAndUnitAreKeptInThePlan) {
  const ParsedArgs p = ParseSweepArgs(
      {"--latency", "0,1us", "--metric", "regex:t=([0-9.]+)", "--metric-name",
       "step time", "--metric-unit", "ms", "--", "./app"},
      "out", 1);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_EQ(p.plan->metric_name, "step time");
  EXPECT_EQ(p.plan->metric_unit, "ms");
  std::string why;
  const auto back = PlanFromJson(PlanToJson(*p.plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->metric_name, "step time");
  EXPECT_EQ(back->metric_unit, "ms");
  auto old = nlohmann::json::parse(PlanToJson(*p.plan));
  old.erase("metric_name");
  old.erase("metric_unit");
  const auto older = PlanFromJson(old.dump(), &why);
  ASSERT_TRUE(older) << why;
  EXPECT_EQ(older->metric_name, "");
  EXPECT_FALSE(ParseSweepArgs({"--latency", "0,1us", "--metric",
                               "preset:osu_latency", "--", "./app"},
                              "out", 1)
                   .plan);
}

// --precision: 3 blocks first unless --repeat says, the goal kept in
// plan.json (a plan without one reads as a fixed sweep), and a block added
// to the plan leaves the order of the blocks before it as it was.
TEST(PlanTest, ThePrecisionGoalIsKeptAndBlocksAddedKeepTheOrder) {
  const ParsedArgs p =
      ParseSweepArgs({"--latency", "0,1us,2us", "--precision", "0.05",
                      "--budget", "90m", "--", "./app"},
                     "out", 7);
  ASSERT_TRUE(p.plan) << p.error;
  EXPECT_EQ(p.plan->precision, (PrecisionGoal{0.05, 3, 20, 5400}));
  EXPECT_EQ(p.plan->repeat, 3);
  const ParsedArgs r =
      ParseSweepArgs({"--repeat", "4", "--precision", "5%", "--max-blocks", "9",
                      "--budget", "2h", "--", "./app"},
                     "out", 7);
  ASSERT_TRUE(r.plan) << r.error;
  EXPECT_EQ(r.plan->precision, (PrecisionGoal{0.05, 4, 9, 7200}));
  EXPECT_EQ(GoalText(r.plan->precision),
            "--precision 0.05 --max-blocks 9 --budget 7200s");
  SweepPlan plan = *p.plan;
  std::string why;
  const auto grid = PlanGrid(plan, &why);
  ASSERT_TRUE(grid) << why;
  Prepare(*grid, &plan);
  const auto back = PlanFromJson(PlanToJson(plan), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->precision, plan.precision);
  SweepPlan more = plan;
  ++more.repeat;
  Prepare(*grid, &more);
  ASSERT_EQ(more.order.size(), plan.order.size() + 3);
  for (size_t i = 0; i < plan.order.size(); ++i) {
    EXPECT_EQ(more.order[i].point, plan.order[i].point) << i;
    EXPECT_EQ(more.order[i].block, plan.order[i].block) << i;
  }
  auto old = nlohmann::json::parse(PlanToJson(plan));
  old.erase("precision");
  EXPECT_EQ(PlanFromJson(old.dump(), &why)->precision, PrecisionGoal{});
  old["precision"] = {
      {"rel", 2}, {"min_blocks", 3}, {"max_blocks", 20}, {"budget_s", 0}};
  EXPECT_FALSE(PlanFromJson(old.dump(), &why));
  // --resume takes the goal's options.
  const ParsedArgs resume = ParseSweepArgs(
      {"--resume", "d", "--precision", "0.02", "--max-blocks", "40", "--force"},
      "o", 1);
  EXPECT_TRUE(resume.error.empty()) << resume.error;
  EXPECT_EQ(resume.precision, 0.02);
  EXPECT_EQ(resume.max_blocks, 40);
}

}  // namespace
}  // namespace verbsemu::sweep
