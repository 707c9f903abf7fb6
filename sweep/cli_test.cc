// `verbsemu sweep` end to end over a fake command with a known response:
// metric = 50 + 2.5 x (added latency in µs) + seeded Gaussian noise, one
// shim report per run written where VERBSEMU_REPORT says.
#include "sweep/cli.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <set>

#include "sweep/cli_test_util.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {
namespace {

// A soft device stalls a whole run now and then (in the test bed a run's
// t_min of 131 us where its point's others gave 80): the runs' R² drops,
// the points' medians still lie on the line.
TEST_F(SweepCliTest, OneStalledRunTipsTheRunsR2ButNotTheMedians) {
  fake_.tweak = [](int call, double, Json*, std::string* output) {
    if (call == 10) *output = "value t=400.0\n";
  };
  ASSERT_EQ(Sweep(Args()), 0) << stderr_;
  EXPECT_LT(Result()["fits"]["latency"]["r2"].get<double>(), 0.9);
  const Json medians = Result()["fits"]["latency_medians"];
  EXPECT_NEAR(medians["slope"].get<double>(), 2.5, 0.15) << medians;
  EXPECT_GT(medians["r2"].get<double>(), 0.99) << medians;
}

// A metric by name: LAMMPS's own line; the table, the plot's labels and
// sweep.json carry its name and unit, the stalled run is set aside, and
// LLAMP's CSV files are written for a time.
TEST_F(SweepCliTest, APresetLabelsTheAnswerAndTheStalledRunIsSetAside) {
  fake_.tweak = [](int call, double, Json*, std::string* output) {
    std::string t = output->substr(output->find("t=") + 2);
    t.pop_back();  // its newline
    *output = "Loop time of " + (call == 10 ? std::string("400.0") : t) +
              " on 2 procs for 500 steps with 256 atoms\n";
  };
  auto args = Args();
  args[7] = "preset:lammps";
  ASSERT_EQ(Sweep(args), 0) << stderr_;
  EXPECT_NE(stdout_.find("metric: Loop time (s), lower is better"),
            std::string::npos)
      << stdout_;
  EXPECT_NE(stdout_.find("slope against added latency: +2."), std::string::npos)
      << stdout_;
  EXPECT_NE(stdout_.find("  set aside: run 8 "), std::string::npos) << stdout_;
  const Json answer = Result()["fits"]["answer"];
  EXPECT_EQ(answer["metric"]["unit"], "s");
  EXPECT_NEAR(answer["latency_blocked"]["slope"].get<double>(), 2.5, 0.15);
  ASSERT_EQ(answer["set_aside"].size(), 1u) << answer["set_aside"];
  EXPECT_EQ(answer["set_aside"][0]["run"], 8);
  EXPECT_EQ(answer["latency_tolerance_us"].size(), 2u);
  EXPECT_TRUE(Slurp(dir_ / "llamp_lat_sensitivity.csv")
                  .starts_with("L,sensitivity\n0,2"));
}

TEST_F(SweepCliTest, RecoversTheSlopeWithAnIntervalThatCoversIt) {
  ASSERT_EQ(Sweep(Args()), 0) << stderr_;
  const Json fit = Result()["fits"]["latency"];
  EXPECT_NEAR(fit["slope"].get<double>(), 2.5, 0.15) << fit;
  EXPECT_LE(fit["slope_ci"][0].get<double>(), 2.5) << fit;
  EXPECT_GE(fit["slope_ci"][1].get<double>(), 2.5) << fit;
  EXPECT_GT(fit["r2"].get<double>(), 0.98);
  EXPECT_EQ(fit["n"], 25);
  const Json robust = Result()["fits"]["latency_robust"];
  EXPECT_NEAR(robust["slope"].get<double>(), 2.5, 0.15) << robust;
  EXPECT_LE(robust["slope_ci"][0].get<double>(), 2.5) << robust;
  EXPECT_GE(robust["slope_ci"][1].get<double>(), 2.5) << robust;
  const Json medians = Result()["fits"]["latency_medians"];
  EXPECT_NEAR(medians["slope"].get<double>(), 2.5, 0.15) << medians;
  EXPECT_GT(medians["r2"].get<double>(), 0.99) << medians;
  EXPECT_EQ(medians["n"], 5);
  EXPECT_NE(stdout_.find("the points' medians: +2."), std::string::npos)
      << stdout_;
  EXPECT_EQ(fake_.calls, 1 + 25);  // the pilot, then 5 blocks of 5 points
  EXPECT_NE(stdout_.find("slope against added latency: +2."), std::string::npos)
      << stdout_;
  std::string why;
  const auto runs = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
  ASSERT_TRUE(runs) << why;
  ASSERT_EQ(runs->size(), 25u);
  // Randomized complete blocks: each block holds every point once.
  for (int b = 0; b < 5; ++b) {
    std::set<int> points;
    for (const RunRecord& r : *runs) {
      if (r.block == b) points.insert(r.point);
    }
    EXPECT_EQ(points.size(), 5u) << "block " << b;
  }
}

TEST_F(SweepCliTest, EveryRunGetsTheShimAndItsPointsSettings) {
  struct Recorder : FakeCommand {
    std::vector<RunRequest> seen;
    RunOutcome Run(const RunRequest& r) override {
      seen.push_back(r);
      return FakeCommand::Run(r);
    }
  } rec;
  ctx_.executor = &rec;
  ctx_.current_preload = "/usr/lib/libother.so";
  ASSERT_EQ(Sweep(Args({"--bandwidth", "100%,50%", "--bw-mode", "pace"})), 0)
      << stderr_;
  std::string why;
  const auto runs = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
  ASSERT_TRUE(runs) << why;
  ASSERT_EQ(rec.seen.size(), 1 + runs->size());
  for (size_t i = 0; i < runs->size(); ++i) {
    const RunRequest& req = rec.seen[i + 1];
    const RunRecord& r = (*runs)[i];
    EXPECT_EQ(req.argv, std::vector<std::string>{"/bin/true"});
    EXPECT_EQ(EnvOf(req, "LD_PRELOAD"),
              "/opt/verbsemu/libverbsemu.so:/usr/lib/libother.so");
    EXPECT_EQ(EnvOf(req, "VERBSEMU_LATENCY"), r.latency);
    EXPECT_EQ(EnvOf(req, "VERBSEMU_BANDWIDTH"), r.bandwidth);
    EXPECT_EQ(EnvOf(req, "VERBSEMU_BW_MODE"), "pace");
    EXPECT_EQ(EnvOf(req, "VERBSEMU_REPORT"),
              fs::absolute(dir_).string() + "/reports/run-" +
                  (i < 10 ? "000" : "00") + std::to_string(i) + "/%h.%p.txt");
    EXPECT_EQ(r.bw_mode, r.bandwidth == "50%" ? "pace" : "");
  }
  EXPECT_EQ(runs->size(), 50u);  // 5 latencies x 2 bandwidths x 5 blocks
}

// LogGP axes: every run gets its point's knobs, runs.csv and sweep.json
// record them, and each axis gets its slope (the latency fit keeps to the
// points where none is set). The fake responds 50 + 4 x overhead + 10 x gap
// (in µs).
TEST_F(SweepCliTest, LogGpAxesAreSweptRecordedAndFitted) {
  struct ByOverhead : FakeCommand {
    std::vector<RunRequest> seen;
    RunOutcome Run(const RunRequest& r) override {
      seen.push_back(r);
      RunOutcome o = FakeCommand::Run(r);
      auto us = [&r](const char* knob) {
        return *units::ParseDurationNs(EnvOf(r, knob), nullptr) / 1e3;
      };
      char out[64];
      std::snprintf(out, sizeof out, "value t=%.4f\n",
                    50 + 4 * us("VERBSEMU_OVERHEAD") + 10 * us("VERBSEMU_GAP"));
      std::ofstream(r.log_path) << out;
      o.output = out;
      return o;
    }
  } rec;
  rec.slope = 0;
  ctx_.executor = &rec;
  auto args = Args({"--overhead", "0,1us,2us", "--gap", "0,500ns"});
  args[1] = "0";
  ASSERT_EQ(Sweep(args), 0) << stderr_;
  std::string why;
  const auto runs = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
  ASSERT_TRUE(runs) << why;
  ASSERT_EQ(runs->size(), 6u * 5);  // 3 overheads x 2 gaps x 5 blocks
  for (size_t i = 0; i < runs->size(); ++i) {
    const RunRequest& req = rec.seen[i + 1];
    const RunRecord& r = (*runs)[i];
    EXPECT_EQ(EnvOf(req, "VERBSEMU_OVERHEAD"), r.durations[0]);
    EXPECT_EQ(EnvOf(req, "VERBSEMU_RECV_OVERHEAD"), "0");
    EXPECT_EQ(EnvOf(req, "VERBSEMU_GAP"), r.durations[2]);
  }
  const Json fits = Result()["fits"];
  EXPECT_NEAR(fits["overhead"]["slope"].get<double>(), 4, 1e-6) << fits;
  EXPECT_NEAR(fits["gap"]["slope"].get<double>(), 10, 1e-6) << fits;
  EXPECT_TRUE(fits["recv_overhead"].is_null());
  EXPECT_EQ(Result()["points"][2]["overhead"], "1us");
  EXPECT_EQ(Result()["runs"][0]["gap_ns"].is_number(), true);
  EXPECT_NE(stdout_.find("slope against overhead: +4 per µs"),
            std::string::npos)
      << stdout_;
  EXPECT_NE(stdout_.find("[overhead 2us, gap 500ns]"), std::string::npos)
      << stdout_;
}

TEST_F(SweepCliTest, InterruptedSweepResumesWhereItStopped) {
  // Ctrl-C during the 8th call (the pilot is the 1st): that run is dropped.
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Args()), 130) << stderr_;
  EXPECT_NE(stderr_.find("--resume " + dir_.string()), std::string::npos)
      << stderr_;
  std::string why;
  const auto before = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
  ASSERT_TRUE(before) << why;
  ASSERT_EQ(before->size(), 6u);
  // A row cut short by a kill is left out on resume.
  std::ofstream(dir_ / "runs.csv", std::ios::app) << "6,1,2,app,2us,20";
  fake_.tweak = nullptr;
  ASSERT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  const auto after = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
  ASSERT_TRUE(after) << why;
  ASSERT_EQ(after->size(), 25u);
  for (size_t i = 0; i < before->size(); ++i) {
    EXPECT_EQ(RunsCsvRow((*after)[i]), RunsCsvRow((*before)[i])) << i;
  }
  // Nothing that finished ran twice; the resume ran its own pilot.
  EXPECT_EQ(fake_.calls, 1 + 7 + 1 + 19);
  EXPECT_EQ(Result()["fits"]["latency"]["n"], 25);
  // A finished sweep resumed again only reports.
  EXPECT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  EXPECT_EQ(fake_.calls, 28);
}

TEST_F(SweepCliTest, CtrlCDuringThePilotRecordsNothing) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 1) std::raise(SIGINT);
  };
  EXPECT_EQ(Sweep(Args()), 130);
  EXPECT_NE(stderr_.find("interrupted during the pilot"), std::string::npos)
      << stderr_;
  EXPECT_FALSE(fs::exists(dir_ / "runs.csv"));
  EXPECT_EQ(fake_.calls, 1);
}

TEST_F(SweepCliTest, APointWithAnUnemulatedProcessIsInvalid) {
  fake_.tweak = [](int, double us, Json* reports, std::string*) {
    if (us == 5) (*reports)[0]["warnings"].push_back(InvalidatingWarning());
  };
  ASSERT_EQ(Sweep(Args()), 1) << stderr_;
  const Json result = Result();  // the loop must not outlive it
  for (const Json& p : result["points"]) {
    EXPECT_EQ(p["valid"], p["latency"] != "5us") << p;
  }
  EXPECT_NE(stdout_.find("INVALID"), std::string::npos) << stdout_;
  EXPECT_NE(stderr_.find("5 were not emulated"), std::string::npos) << stderr_;
}

// Each process reports waits 10% longer than asked (the CPU its threads
// lost): the answer says so beside the slope, runs.csv and sweep.json
// keep each run's waits.
TEST_F(SweepCliTest, TheShimsWaitsArePrintedBesideTheSlope) {
  fake_.noise_sd = 0;
  fake_.tweak = [](int, double us, Json* reports, std::string*) {
    (*reports)[0]["waits"] = {{"count", us > 0 ? 100 : 0},
                              {"waited_ns", us * 1100 * 100},
                              {"lost_cpu", 2},
                              {"lost_cpu_late_ns", us * 100 * 100}};
  };
  ASSERT_EQ(Sweep(Args()), 0) << stderr_;
  EXPECT_NE(stdout_.find("the shim's waits: 1.1 µs per µs asked"),
            std::string::npos)
      << stdout_;
  EXPECT_NE(stdout_.find(", 1 without the CPU the waiting threads lost"),
            std::string::npos)
      << stdout_;
  // 2.5 per µs asked is 2.5 / 1.1 per µs delivered.
  EXPECT_NE(stdout_.find("slope against the delay delivered: +2.273"),
            std::string::npos)
      << stdout_;
  const Json result = Result();
  EXPECT_NEAR(
      result["fits"]["answer"]["delivered"]["per_asked"]["slope"].get<double>(),
      1.1, 1e-9);
  for (const Json& r : result["runs"]) {
    const double us = r["latency_ns"].get<double>() / 1e3;
    EXPECT_NEAR(r["wait_ns"].get<double>(), us * 1100, 1e-6) << r;
    EXPECT_NEAR(r["wait_own_ns"].get<double>(), us * 1000, 1e-6) << r;
  }
  EXPECT_NE(Slurp(dir_ / "runs.csv").find(",waits,wait_ns,wait_own_ns,"),
            std::string::npos);
}

TEST_F(SweepCliTest, ARunWithFewerReportsThanTheOthersIsInvalid) {
  // Two ranks report in every run but one: a rank ran without the shim.
  fake_.tweak = [](int call, double, Json* reports, std::string*) {
    if (call != 10) {
      reports->push_back(FakeShimReport(77));
    }
  };
  ASSERT_EQ(Sweep(Args()), 1) << stderr_;
  int invalid = 0;
  const Json result = Result();
  for (const Json& r : result["runs"]) {
    if (r["valid"] == false) {
      ++invalid;
      EXPECT_NE(r["reason"].get<std::string>().find("without the shim"),
                std::string::npos);
    }
  }
  EXPECT_EQ(invalid, 1) << stdout_ << stderr_;
}

// A program the shim never saw (it opened no device under the shim, as NCCL
// on a libibverbs the shim could not hook): a flat slope that would read as
// "insensitive", so every run is invalid and the sweep fails.
TEST_F(SweepCliTest, RunsWithNoReportAnywhereAreInvalid) {
  fake_.tweak = [](int, double, Json* reports, std::string*) {
    reports->clear();
  };
  ASSERT_EQ(Sweep(Args({"--allow-unemulated"})), 1) << stderr_;
  const Json result = Result();
  ASSERT_FALSE(result["runs"].empty());
  for (const Json& r : result["runs"]) {
    EXPECT_EQ(r["valid"], false) << r;
    EXPECT_NE(r["reason"].get<std::string>().find("no shim report"),
              std::string::npos)
        << r;
  }
  EXPECT_NE(stdout_.find("INVALID"), std::string::npos) << stdout_;
}

TEST_F(SweepCliTest, BadInputIsOneLineAndExitTwoBeforeAnythingRuns) {
  const std::vector<std::vector<std::string>> bad = {
      {"--latency", "0,2parsecs", "--", "/bin/true"},
      {"--latency", "0,1us", "--metric", "latency", "--", "/bin/true"},
      {"--latency", "0,1us", "--repeat", "0", "--", "/bin/true"},
      {"--latency", "0,1us", "--bw-mode", "drop", "--", "/bin/true"},
      {"--latency", "0,1us", "--", "/no/such/program"},
      {"--latency", "0,1us"},
      {"--resume", "/no/such/dir"},
      {"--frobnicate", "--", "/bin/true"}};
  for (const auto& args : bad) {
    std::vector<std::string> a = args;
    a.insert(a.begin(), {"--out", dir_.string()});
    EXPECT_EQ(Sweep(a), 2) << a[2];
    EXPECT_EQ(stderr_.find('\n'), stderr_.size() - 1) << stderr_;
    EXPECT_TRUE(stderr_.starts_with("verbsemu sweep: ")) << stderr_;
  }
  EXPECT_EQ(fake_.calls, 0);
}

TEST_F(SweepCliTest, AMetricThatMatchesNothingStopsAfterThePilot) {
  std::vector<std::string> a = Args();
  a[7] = "regex:Loop time of ([0-9.]+)";
  EXPECT_EQ(Sweep(a), 2);
  EXPECT_NE(stderr_.find("matches nothing"), std::string::npos) << stderr_;
  EXPECT_EQ(fake_.calls, 1);
  EXPECT_FALSE(fs::exists(dir_ / "runs.csv"));
}

TEST_F(SweepCliTest, PingPongNormalisesDelaySensitivity) {
  // The application's runtime grows 4x as fast as the ping-pong's.
  struct Timed : FakeCommand {
    RunOutcome Run(const RunRequest& r) override {
      RunOutcome o = FakeCommand::Run(r);
      const double us = std::stod(o.output.substr(o.output.find("t=") + 2));
      const bool pingpong = r.argv.size() == 3 && r.argv[0] == "/bin/sh";
      o.wall_s = pingpong ? (us - 50) / 4 * 1e-3 + 0.5 : us * 1e-3;
      return o;
    }
  } timed;
  timed.noise_sd = 0.05;
  ctx_.executor = &timed;
  std::vector<std::string> a = Args({"--pingpong", "ib_send_lat -n 1000"});
  a[7] = "runtime";
  ASSERT_EQ(Sweep(a), 0) << stderr_;
  const Json fits = Result()["fits"];
  EXPECT_NEAR(fits["c_a"]["value"].get<double>(), 4, 0.2) << fits;
  EXPECT_LE(fits["c_a"]["ci"][0].get<double>(), 4) << fits;
  EXPECT_GE(fits["c_a"]["ci"][1].get<double>(), 4) << fits;
  // Raw: 2.5e-3 s of runtime per µs of one-way delay = 2500 s per s.
  EXPECT_NEAR(fits["c_a_raw"]["value"].get<double>(), 2500, 150) << fits;
  EXPECT_NE(stdout_.find("ping-pong = 1"), std::string::npos) << stdout_;
}

TEST_F(SweepCliTest, TheControlWaitsOnItsOwnWithoutTheShim) {
  // The application under the shim answers 2.5 per µs; the control, its
  // own wait taken from its command line, 2.4 per µs and no report.
  struct Control : FakeCommand {
    std::vector<RunRequest> controls;
    RunOutcome Run(const RunRequest& r) override {
      if (r.argv.size() != 3 || r.argv[2].rfind("app --wait ", 0) != 0) {
        return FakeCommand::Run(r);
      }
      controls.push_back(r);
      const double us = std::stod(r.argv[2].substr(11)) / 1e3;
      char out[64];
      std::snprintf(out, sizeof out, "value t=%.4f\n", 50 + 2.4 * us);
      std::ofstream(r.log_path) << out;
      RunOutcome o;
      o.started = true;
      o.exit_code = 0;
      o.wall_s = 0.001;
      o.output = out;
      return o;
    }
  } fake;
  ctx_.executor = &fake;
  ASSERT_EQ(Sweep(Args({"--control", "app --wait {latency_ns}"})), 0)
      << stderr_;
  ASSERT_EQ(fake.controls.size(), 25u);  // 5 latencies x 5 blocks
  for (const RunRequest& r : fake.controls) {
    EXPECT_EQ(EnvOf(r, "LD_PRELOAD"), "") << r.argv[2];
    EXPECT_EQ(EnvOf(r, "VERBSEMU_LATENCY"), "0") << r.argv[2];
  }
  const Json answer = Result()["fits"]["answer"];
  EXPECT_NEAR(answer["control_blocked"]["slope"].get<double>(), 2.4, 1e-6);
  EXPECT_NEAR(answer["latency_blocked"]["slope"].get<double>(), 2.5, 0.15);
  EXPECT_NE(stdout_.find("the control (the program's own wait, no shim): "
                         "+2.4 per µs"),
            std::string::npos)
      << stdout_;
  const std::string runs = Slurp(dir_ / "runs.csv");
  EXPECT_NE(runs.find(",control,10us,10000,"), std::string::npos) << runs;
}

TEST_F(SweepCliTest, ANonEmptyOutputDirectoryIsNotOverwritten) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "precious.txt") << "keep\n";
  EXPECT_EQ(Sweep(Args()), 2);
  EXPECT_NE(stderr_.find("not empty"), std::string::npos) << stderr_;
  EXPECT_EQ(Slurp(dir_ / "precious.txt"), "keep\n");
}

}  // namespace
}  // namespace verbsemu::sweep
