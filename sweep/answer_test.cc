#include "sweep/answer.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

// Runs of 10 + 0.5 x seconds (x in µs) in 4 blocks, run 7 stalled.
std::vector<RunRecord> Runs() {
  std::vector<RunRecord> runs;
  const std::vector<std::pair<const char*, double>> lat = {{"0", 0},
                                                           {"5us", 5000},
                                                           {"10us", 10000},
                                                           {"20us", 20000},
                                                           {"40us", 40000}};
  int n = 0;
  for (int b = 0; b < 4; ++b) {
    for (size_t p = 0; p < lat.size(); ++p) {
      RunRecord r;
      r.run = n++;
      r.block = b;
      r.point = static_cast<int>(p);
      r.latency = lat[p].first;
      r.latency_ns = lat[p].second;
      r.bandwidth = "100%";
      r.valid = true;
      r.metric = 10 + 0.5 * r.latency_ns / 1000 + 0.1 * b +
                 0.01 * static_cast<double>((n * 7) % 5);
      if (r.run == 7) r.metric = *r.metric * 3;
      runs.push_back(r);
    }
  }
  return runs;
}

Grid TheGrid() {
  Grid g;
  g.points = {{"0", "100%", 0, 1},
              {"5us", "100%", 5000, 1},
              {"10us", "100%", 10000, 1},
              {"20us", "100%", 20000, 1},
              {"40us", "100%", 40000, 1}};
  return g;
}

TEST(AnswerTest, HeadlineSetAsideAndTolerancesInTheTable) {
  const Analysis a =
      Analyze(TheGrid(), Runs(), LabelFor("preset:lammps", "", ""));
  const std::string text = AnswerText(a);
  EXPECT_NE(text.find("slope against added latency: +0.499"), std::string::npos)
      << text;
  EXPECT_NE(text.find("set aside: run 7 (10us, block 1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("latency within 1% of the baseline: 0.2"),
            std::string::npos)
      << text;
  const nlohmann::json j = AnswerJson(a);
  EXPECT_EQ(j["metric"]["unit"], "s");
  EXPECT_EQ(j["set_aside"][0]["run"], 7);
  EXPECT_EQ(j["noisy_points"], nlohmann::json::array({2}));
  EXPECT_EQ(j["latency_tolerance_us"].size(), 2u);
  EXPECT_NEAR(j["latency_blocked"]["slope"].get<double>(), 0.5, 0.01);
}

TEST(AnswerTest, LlampFilesForATimeMetricOnly) {
  const Analysis a =
      Analyze(TheGrid(), Runs(), LabelFor("preset:lammps", "", ""));
  const auto files = LlampFiles(a);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].first, "llamp_lat_sensitivity.csv");
  // 0.5 s per µs is 5e5 ns per ns of latency.
  EXPECT_TRUE(files[0].second.starts_with("L,sensitivity\n0,499"))
      << files[0].second;
  EXPECT_TRUE(files[1].second.starts_with("L,runtime\n0,1")) << files[1].second;
  EXPECT_TRUE(files[2].second.starts_with(
      "latency_threshold,latency_tolerance\n0.01,20"))
      << files[2].second;
  EXPECT_TRUE(
      LlampFiles(Analyze(TheGrid(), Runs(), LabelFor("preset:hpcg", "", "")))
          .empty());
}

// The shim's waits lasted 1.2 x what was asked, 1.0 x without the CPU the
// waiting threads lost, and the application answers 0.5 s per µs it
// waited: 0.6 s per µs asked.
TEST(AnswerTest, TheDelayDeliveredBesideTheDelayAsked) {
  std::vector<RunRecord> runs = Runs();
  for (RunRecord& r : runs) {
    const double asked_us = r.latency_ns / 1000;
    r.waits = r.latency_ns > 0 ? 1000 : 0;
    r.wait_ns = 1200 * asked_us * (1 + 0.001 * r.block);
    r.wait_own_ns = 1000 * asked_us;
    r.metric = 10 + 0.5 * r.wait_ns / 1000 + 0.1 * r.block;
  }
  const Analysis a =
      Analyze(TheGrid(), runs, LabelFor("preset:lammps", "", ""));
  ASSERT_TRUE(a.delivered.ok && a.delivered_own.ok && a.latency_delivered.ok);
  EXPECT_NEAR(a.latency_blocked.slope, 0.6, 0.002);
  EXPECT_NEAR(a.delivered.slope, 1.2, 0.002);
  EXPECT_NEAR(a.delivered_own.slope, 1.0, 1e-9);
  EXPECT_NEAR(a.latency_delivered.slope, 0.5, 1e-9);
  // 0.6 s per µs asked, and the spins' own lasted what was asked.
  EXPECT_NEAR(a.latency_delivered_own.slope, 0.6, 0.002);
  const std::string text = AnswerText(a);
  EXPECT_NE(text.find("the shim's waits: 1.2"), std::string::npos) << text;
  EXPECT_NE(text.find(" 1 without the CPU the waiting threads lost"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("slope against the delay delivered: +0.5 s per µs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(", +0.6009 per µs of the spins' own"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  the waits lasted 20% longer than asked"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("the emulator's error"), std::string::npos) << text;
  const nlohmann::json j = AnswerJson(a);
  EXPECT_NEAR(j["delivered"]["per_asked"]["slope"].get<double>(), 1.2, 0.002);
  EXPECT_NEAR(j["delivered"]["metric_per_delivered"]["slope"].get<double>(),
              0.5, 1e-9);

  // Spins 10% short, and no CPU lost: the emulator's error, said so.
  std::vector<RunRecord> short_runs = runs;
  for (RunRecord& r : short_runs) {
    r.wait_own_ns = 900 * r.latency_ns / 1000 * (1 + 0.001 * r.block);
    r.wait_ns = r.wait_own_ns;
  }
  const std::string short_text = AnswerText(
      Analyze(TheGrid(), short_runs, LabelFor("preset:lammps", "", "")));
  EXPECT_NE(short_text.find("  the spins' own waits are -9.9% off what was "
                            "asked: the emulator's error"),
            std::string::npos)
      << short_text;
  EXPECT_EQ(short_text.find("longer than asked"), std::string::npos);

  // One run at a latency that reported no waits (a shim that did not
  // write them): nothing said about delivery.
  runs[3].waits = 0;
  const Analysis none =
      Analyze(TheGrid(), runs, LabelFor("preset:lammps", "", ""));
  EXPECT_FALSE(none.delivered.ok);
  EXPECT_EQ(AnswerText(none).find("the shim's waits"), std::string::npos);
  EXPECT_TRUE(AnswerJson(none)["delivered"]["per_asked"].is_null());
}

// A bandwidth sweep: time = 10 + 1 x (1/share - 1) s in 3 blocks; within
// 5% (0.5 s) down to the share 1 / 1.5.
// The control (program "control") beside the application: its slope, and
// the ratio only against a control that rose.
TEST(AnswerTest, TheControlsSlopeAndTheRatioOnlyAgainstARisingControl) {
  std::vector<RunRecord> runs = Runs();
  for (RunRecord r : Runs()) {
    r.program = ProgramName(Program::kControl);
    r.metric = 10 + 0.4 * r.latency_ns / 1000 + 0.1 * r.block;
    runs.push_back(r);
  }
  const Analysis a =
      Analyze(TheGrid(), runs, LabelFor("preset:lammps", "", ""));
  ASSERT_TRUE(a.control_blocked.ok);
  EXPECT_NEAR(a.control_blocked.slope, 0.4, 1e-9);
  EXPECT_NEAR(a.latency_blocked.slope, 0.5, 0.002);
  const std::string text = AnswerText(a);
  EXPECT_NE(text.find("the control (the program's own wait, no shim): +0.4 "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("its ratio to the control's 1.2"), std::string::npos)
      << text;
  EXPECT_NEAR(AnswerJson(a)["control_blocked"]["slope"].get<double>(), 0.4,
              1e-9);

  // A flat control: its slope, no ratio.
  for (RunRecord& r : runs) {
    if (r.program == ProgramName(Program::kControl)) {
      r.metric = 10 + 0.1 * r.block;
    }
  }
  const std::string flat =
      AnswerText(Analyze(TheGrid(), runs, LabelFor("preset:lammps", "", "")));
  EXPECT_NE(flat.find("the control (the program's own wait"), std::string::npos)
      << flat;
  EXPECT_EQ(flat.find("ratio"), std::string::npos) << flat;
}

TEST(AnswerTest, BandwidthToleranceFromTheBlockedFit) {
  Grid g;
  g.points = {{"0", "100%", 0, 1}, {"0", "50%", 0, 0.5}, {"0", "25%", 0, 0.25}};
  std::vector<RunRecord> runs;
  for (int b = 0; b < 3; ++b) {
    for (int p = 0; p < 3; ++p) {
      RunRecord r;
      r.run = static_cast<int>(runs.size());
      r.block = b;
      r.point = p;
      r.latency = "0";
      r.bandwidth = g.points[static_cast<size_t>(p)].bandwidth;
      r.bandwidth_share = g.points[static_cast<size_t>(p)].bandwidth_share;
      r.valid = true;
      r.metric = 10 + (1 / r.bandwidth_share - 1) + 0.2 * b;
      runs.push_back(r);
    }
  }
  const Analysis a = Analyze(g, runs, LabelFor("preset:wall", "", ""));
  ASSERT_TRUE(a.bandwidth_blocked.ok);
  EXPECT_NEAR(a.bandwidth_blocked.slope, 1, 1e-9);
  ASSERT_EQ(a.bandwidth_tolerance.size(), 2u);
  EXPECT_NEAR(a.bandwidth_tolerance[1].value, 1 / (1 + 0.05 * 10.2), 1e-9);
  EXPECT_FALSE(a.bandwidth_tolerance[1].extrapolated);
  EXPECT_NE(AnswerText(a).find("bandwidth within 5% of the baseline: 66.23%"),
            std::string::npos)
      << AnswerText(a);
}

}  // namespace
}  // namespace verbsemu::sweep
