// `verbsemu sweep --precision` end to end over the fake command: blocks
// are added until the slope's interval is narrow enough, --max-blocks or
// --budget stop it, a resume goes on from where it stopped.
#include <gtest/gtest.h>

#include <csignal>

#include "sweep/analysis.h"
#include "sweep/cli.h"
#include "sweep/cli_test_util.h"
#include "sweep/precision.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {
namespace {

class PrecisionCliTest : public SweepCliTest {
 protected:
  // 5 latencies, 3 blocks first, then `extra`.
  std::vector<std::string> Precise(std::vector<std::string> extra) {
    std::vector<std::string> a = Args(std::move(extra));
    a[3] = "3";
    return a;
  }
  std::vector<RunRecord> Runs() {
    std::string why;
    const auto runs = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
    EXPECT_TRUE(runs) << why;
    return runs ? *runs : std::vector<RunRecord>{};
  }
  // The slope's estimate from the runs of the first `blocks` blocks.
  Estimate After(int blocks) {
    std::vector<RunRecord> first;
    for (const RunRecord& r : Runs()) {
      if (r.block < blocks) first.push_back(r);
    }
    std::string why;
    const auto grid = ParseGrid("0,1us,2us,5us,10us", "", &why);
    return PrimaryEstimate(Analyze(*grid, first, MetricLabel{}));
  }
};

TEST_F(PrecisionCliTest, StopsAtTheFirstBlockWhoseIntervalMeetsTheGoal) {
  fake_.noise_sd = 1.5;
  ASSERT_EQ(Sweep(Precise({"--precision", "5%"})), 0) << stderr_;
  const Json p = Result()["precision"];
  ASSERT_EQ(p["stopped"], "precision") << p;
  const int blocks = p["blocks"];
  EXPECT_GT(blocks, 3) << "the goal must not be met at once, or the test "
                          "shows nothing";
  EXPECT_LT(blocks, 20);
  EXPECT_EQ(Runs().size(), 5u * static_cast<size_t>(blocks));
  EXPECT_EQ(fake_.calls, 1 + 5 * blocks);
  EXPECT_LE(After(blocks).Relative(), 0.05);
  EXPECT_GT(After(blocks - 1).Relative(), 0.05);  // not a block too late
  EXPECT_NEAR(p["estimate"]["relative_half_width"].get<double>(),
              After(blocks).Relative(), 1e-12);
  EXPECT_NE(stdout_.find("precision reached after " + std::to_string(blocks) +
                         " blocks: the slope's 95% CI is ±"),
            std::string::npos)
      << stdout_;
  // One line per block from the third, with the interval.
  for (int b = 3; b <= blocks; ++b) {
    EXPECT_NE(stderr_.find("verbsemu sweep: block " + std::to_string(b) +
                           " (of at most 20): slope +2."),
              std::string::npos)
        << stderr_;
  }
  EXPECT_EQ(Json::parse(Slurp(dir_ / "plan.json"))["repeat"], blocks);
  // A finished sweep resumed only reports.
  ASSERT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  EXPECT_EQ(fake_.calls, 1 + 5 * blocks);
}

TEST_F(PrecisionCliTest, AFlatCommandStopsAtMaxBlocksNotDistinguishable) {
  fake_.slope = 0;
  ASSERT_EQ(Sweep(Precise({"--precision", "0.05", "--max-blocks", "6"})), 0)
      << stderr_;
  EXPECT_EQ(Runs().size(), 30u);
  EXPECT_NE(stdout_.find("the slope is not distinguishable from 0 after 6 "
                         "blocks: ["),
            std::string::npos)
      << stdout_;
  EXPECT_NE(stdout_.find("]; stopped at --max-blocks 6"), std::string::npos)
      << stdout_;
  EXPECT_EQ(Result()["precision"]["stopped"], "max_blocks");
  EXPECT_EQ(Result()["precision"]["blocks"], 6);
}

// Each run takes 10 s: 3 blocks spend 150 s, a 4th would end at 200 s.
TEST_F(PrecisionCliTest, TheBudgetStopsItAndAForcedResumeGoesOn) {
  fake_.slope = 0;
  fake_.wall_s = 10;
  ASSERT_EQ(Sweep(Precise({"--precision", "0.05", "--max-blocks", "5",
                           "--budget", "3m"})),
            0)
      << stderr_;
  EXPECT_EQ(Runs().size(), 15u);
  EXPECT_NE(stdout_.find("stopped by --budget 180 s: the next block (about "
                         "50 s) would pass it, with 150 s spent"),
            std::string::npos)
      << stdout_;
  EXPECT_EQ(Result()["precision"]["stopped"], "budget");
  // Another budget is another plan: refused in one line without --force.
  EXPECT_EQ(Sweep({"--resume", dir_.string(), "--budget", "1h"}), 2);
  EXPECT_EQ(stderr_, "verbsemu sweep: " + dir_.string() +
                         " was started with --precision 0.05 --max-blocks 5 "
                         "--budget 180s; this asks for --precision 0.05 "
                         "--max-blocks 5 --budget 3600s: --force to change "
                         "it\n");
  EXPECT_EQ(fake_.calls, 16);
  ASSERT_EQ(Sweep({"--resume", dir_.string(), "--budget", "1h", "--force"}), 0)
      << stderr_;
  EXPECT_EQ(Runs().size(), 25u);
  EXPECT_EQ(fake_.calls, 16 + 1 + 10);
  EXPECT_EQ(Result()["precision"]["stopped"], "max_blocks");
  EXPECT_EQ(Result()["plan"]["precision"]["budget_s"], 3600);
}

TEST_F(PrecisionCliTest, AnInterruptedSweepResumesAddingBlocks) {
  fake_.slope = 0;
  // Ctrl-C in the first run of the 5th block (the pilot is call 1).
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 22) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Precise({"--precision", "0.05", "--max-blocks", "6"})), 130)
      << stderr_;
  const std::vector<RunRecord> before = Runs();
  ASSERT_EQ(before.size(), 20u);
  fake_.tweak = nullptr;
  ASSERT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  const std::vector<RunRecord> after = Runs();
  ASSERT_EQ(after.size(), 30u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(RunsCsvRow(after[i]), RunsCsvRow(before[i])) << i;
  }
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].block, static_cast<int>(i / 5)) << i;
  }
  EXPECT_EQ(fake_.calls, 22 + 1 + 10);
  EXPECT_EQ(Result()["precision"]["stopped"], "max_blocks");
}

TEST_F(PrecisionCliTest, BadValuesAreRefusedInOneLine) {
  for (const char* bad : {"0", "1", "1.5", "-0.1", "abc", "100%", ""}) {
    EXPECT_EQ(Sweep(Precise({"--precision", bad})), 2) << bad;
    EXPECT_TRUE(stderr_.starts_with("verbsemu sweep: --precision='"))
        << stderr_;
  }
  EXPECT_EQ(Sweep(Precise({"--precision", "0.05", "--max-blocks", "0"})), 2);
  EXPECT_EQ(Sweep(Precise({"--precision", "0.05", "--budget", "soon"})), 2);
  EXPECT_NE(stderr_.find("--budget='soon': expected a wall time such as 90m"),
            std::string::npos)
      << stderr_;
  EXPECT_EQ(Sweep(Precise({"--max-blocks", "8"})), 2);
  EXPECT_EQ(stderr_,
            "verbsemu sweep: --max-blocks and --budget go with --precision "
            "REL\n");
  EXPECT_EQ(Sweep(Precise({"--precision", "0.05", "--max-blocks", "2"})), 2);
  EXPECT_NE(stderr_.find("--max-blocks 2 is below the 3 blocks"),
            std::string::npos)
      << stderr_;
  std::vector<std::string> two = Precise({"--precision", "0.05"});
  two[3] = "2";
  EXPECT_EQ(Sweep(two), 2);
  EXPECT_NE(stderr_.find("at least 3 blocks"), std::string::npos) << stderr_;
  EXPECT_EQ(fake_.calls, 0);
  EXPECT_FALSE(fs::exists(dir_));
}

// A fixed sweep resumed with --precision: refused without --force (it
// changes the plan); with it, blocks are added to the ones that ran.
TEST_F(PrecisionCliTest, AFixedSweepTakesAGoalOnResumeOnlyWithForce) {
  fake_.noise_sd = 3;
  ASSERT_EQ(Sweep(Precise({})), 0) << stderr_;
  EXPECT_FALSE(Result().contains("precision"));
  EXPECT_EQ(Sweep({"--resume", dir_.string(), "--precision", "0.05"}), 2);
  EXPECT_EQ(stderr_, "verbsemu sweep: " + dir_.string() +
                         " was started with no --precision; this asks for "
                         "--precision 0.05 --max-blocks 20 --budget none: "
                         "--force to change it\n");
  EXPECT_EQ(Sweep({"--resume", dir_.string(), "--max-blocks", "5"}), 2);
  EXPECT_EQ(fake_.calls, 1 + 15);
  ASSERT_EQ(Sweep({"--resume", dir_.string(), "--precision", "0.05",
                   "--max-blocks", "5", "--force"}),
            0)
      << stderr_;
  EXPECT_EQ(Runs().size(), 25u);
  EXPECT_EQ(Result()["precision"]["blocks"], 5);
  EXPECT_EQ(Result()["precision"]["min_blocks"], 3);
}

}  // namespace
}  // namespace verbsemu::sweep
