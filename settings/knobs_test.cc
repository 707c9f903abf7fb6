#include "settings/knobs.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>

#include "base/doc_section.h"

namespace verbsemu::shim {
namespace {

class FakeEnv {
 public:
  FakeEnv(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  const char* operator()(const char* name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : it->second.c_str();
  }

 private:
  std::map<std::string, std::string> vars_;
};

TEST(SettingsFromEnvTest, EmptyEnvironmentMeansNoEmulation) {
  auto r = SettingsFromEnv(FakeEnv({}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.settings.engine.emulating());
  EXPECT_EQ(r.settings.engine.pad_threshold_bytes, 65536u);
  EXPECT_TRUE(r.settings.EmulatesDevice("rxe0"));
}

TEST(SettingsFromEnvTest, ReadsEverything) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "2us"},
                                    {"VERBSEMU_BANDWIDTH", "40%"},
                                    {"VERBSEMU_BW_MODE", "pace"},
                                    {"VERBSEMU_PAD_THRESHOLD", "128KiB"},
                                    {"VERBSEMU_DEVICES", "rxe0, mlx5_1"},
                                    {"VERBSEMU_REPORT", "stderr"},
                                    {"VERBSEMU_REPORT_SIGNAL", "USR2"},
                                    {"VERBSEMU_LINK_BANDWIDTH", "10Gbit/s"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  const emulate::Config& c = r.settings.engine;
  EXPECT_TRUE(c.emulating());
  EXPECT_DOUBLE_EQ(c.latency_ns, 2000);
  EXPECT_DOUBLE_EQ(c.bandwidth.fraction, 0.4);
  EXPECT_EQ(c.bw_mode, emulate::BwMode::kPace);
  EXPECT_EQ(c.pad_threshold_bytes, 131072u);
  EXPECT_TRUE(r.settings.EmulatesDevice("rxe0"));
  EXPECT_TRUE(r.settings.EmulatesDevice("mlx5_1"));
  EXPECT_FALSE(r.settings.EmulatesDevice("rxe1"));
  EXPECT_EQ(r.settings.report, "stderr");
  EXPECT_EQ(r.settings.report_signal, SIGUSR2);
  EXPECT_DOUBLE_EQ(c.link_bits_per_s, 10e9);
}

TEST(SettingsFromEnvTest, ReportPathTakesPidAndHostOnly) {
  const Knob& k = *FindKnobByEnv("VERBSEMU_REPORT");
  for (const char* ok : {"stderr", "/tmp/r.txt", "/d/%h.%p.txt", "/d/100%%"}) {
    EXPECT_EQ(ValidateKnob(k, ok), "") << ok;
  }
  for (const char* bad : {"/d/%d.txt", "/d/r%", "/d/%P"}) {
    const std::string why = ValidateKnob(k, bad);
    EXPECT_NE(why.find("p (pid), h (host name) or %"), std::string::npos)
        << bad << ": " << why;
  }
  EXPECT_EQ(ExpandReportPath("/d/%h.%p.txt", 4242, "node7"),
            "/d/node7.4242.txt");
  EXPECT_EQ(ExpandReportPath("/d/100%%-%p", 1, "h"), "/d/100%-1");
  EXPECT_EQ(ExpandReportPath("/plain", 1, "h"), "/plain");
}

TEST(SettingsFromEnvTest, ReportSignalOnlyTheUserSignals) {
  const Knob& k = *FindKnobByEnv("VERBSEMU_REPORT_SIGNAL");
  for (const char* ok : {"USR1", "SIGUSR1", "USR2", "SIGUSR2"}) {
    EXPECT_EQ(ValidateKnob(k, ok), "") << ok;
  }
  for (const char* bad : {"", "usr1", "HUP", "SIGTERM", "10", "USR3"}) {
    EXPECT_NE(ValidateKnob(k, bad), "") << bad;
  }
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_REPORT_SIGNAL", "TERM"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_REPORT_SIGNAL='TERM'"), std::string::npos);
  EXPECT_NE(r.error.find("USR1 or USR2"), std::string::npos);
}

TEST(SettingsFromEnvTest, JobComesFromTheKnobElseTheLauncher) {
  EXPECT_EQ(SettingsFromEnv(FakeEnv({})).settings.job, "");
  const FakeEnv launchers({{"SLURM_JOB_ID", "4242"},
                           {"OMPI_MCA_ess_base_jobid", "3435659265"},
                           {"PMIX_NAMESPACE", "slurm.pmix.4242.0"}});
  EXPECT_EQ(SettingsFromEnv(launchers).settings.job, "4242");
  EXPECT_EQ(SettingsFromEnv(FakeEnv({{"OMPI_MCA_ess_base_jobid", "3435659265"},
                                     {"PMIX_NAMESPACE", "prterun-n1-7@1"}}))
                .settings.job,
            "3435659265");
  EXPECT_EQ(SettingsFromEnv(FakeEnv({{"PMIX_NAMESPACE", "prterun-n1-7@1"}}))
                .settings.job,
            "prterun-n1-7@1");
  auto r = SettingsFromEnv(
      FakeEnv({{"VERBSEMU_JOB", "sweep-3"}, {"SLURM_JOB_ID", "4242"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.job, "sweep-3");
  const Knob& k = *FindKnobByEnv("VERBSEMU_JOB");
  const std::string too_long(65, 'x');
  for (const std::string& bad :
       std::initializer_list<std::string>{"", "a/b", "two words", too_long}) {
    EXPECT_NE(ValidateKnob(k, bad), "") << bad;
  }
}

TEST(SettingsFromEnvTest, ShmDirIsAnAbsolutePath) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_SHM_DIR", "/run/verbsemu/"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.shm_dir, "/run/verbsemu");
  EXPECT_EQ(SettingsFromEnv(FakeEnv({})).settings.shm_dir, "");
  const Knob& k = *FindKnobByEnv("VERBSEMU_SHM_DIR");
  EXPECT_NE(ValidateKnob(k, "relative/dir").find("not an absolute path"),
            std::string::npos);
  EXPECT_NE(ValidateKnob(k, ""), "");
}

// VERBSEMU_PENALTIES: a model by name, or a penalties file; anything else
// one line naming both forms.
TEST(SettingsFromEnvTest, PenaltiesAreAModelOrAFile) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_PENALTIES", "maxmin"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_NE(r.settings.penalties, nullptr);
  EXPECT_EQ(r.settings.penalties->penalties.model->name, "maxmin");
  EXPECT_TRUE(r.settings.penalties->penalties.shapes.empty());
  EXPECT_EQ(SettingsFromEnv(FakeEnv({})).settings.penalties, nullptr);

  const std::string path = ::testing::TempDir() + "/penalties.txt";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(
      "# verbsemu penalties v1\nmodel mm2011-edge\n"
      "shape 0>1,0>2 rho=2.5,2.5\n",
      f);
  std::fclose(f);
  r = SettingsFromEnv(FakeEnv({{"VERBSEMU_PENALTIES", path}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.penalties->source, path);
  EXPECT_EQ(r.settings.penalties->penalties.model->name, "mm2011-edge");
  EXPECT_EQ(r.settings.penalties->penalties.shapes.size(), 1u);

  r = SettingsFromEnv(FakeEnv({{"VERBSEMU_PENALTIES", "fluid"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_PENALTIES"), std::string::npos);
  EXPECT_NE(r.error.find("mm2011-node"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("# verbsemu penalties v1\nmodel nonsense\n", f);
  std::fclose(f);
  r = SettingsFromEnv(FakeEnv({{"VERBSEMU_PENALTIES", path}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find(path + ": line 2"), std::string::npos) << r.error;
}

// VERBSEMU_FABRIC=ib-hol is penalty with ib-hol's penalties, penalty:P
// penalty with P's; P then is not given again by VERBSEMU_PENALTIES.
TEST(SettingsFromEnvTest, TheFabricMayNameThePenalties) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_FABRIC", "ib-hol"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.engine.fabric, emulate::Fabric::kPenalty);
  ASSERT_NE(r.settings.penalties, nullptr);
  EXPECT_EQ(r.settings.penalties->penalties.model->name, "ib-hol");
  r = SettingsFromEnv(FakeEnv({{"VERBSEMU_FABRIC", "penalty:maxmin"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.engine.fabric, emulate::Fabric::kPenalty);
  EXPECT_EQ(r.settings.penalties->penalties.model->name, "maxmin");
  // Plain penalty leaves them to VERBSEMU_PENALTIES.
  r = SettingsFromEnv(FakeEnv(
      {{"VERBSEMU_FABRIC", "penalty"}, {"VERBSEMU_PENALTIES", "maxmin"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.settings.penalties->penalties.model->name, "maxmin");
  r = SettingsFromEnv(FakeEnv(
      {{"VERBSEMU_FABRIC", "ib-hol"}, {"VERBSEMU_PENALTIES", "maxmin"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_PENALTIES"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("names the penalties already (ib-hol)"),
            std::string::npos)
      << r.error;
  for (const char* bad : {"penalty:fluid", "penalty:", "ib-hol:x", "links:"}) {
    r = SettingsFromEnv(FakeEnv({{"VERBSEMU_FABRIC", bad}}));
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error.find("VERBSEMU_FABRIC"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
}

TEST(SettingsFromEnvTest, BadValueNamesVariableAndAcceptedForms) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "2 parsecs"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_LATENCY"), std::string::npos);
  EXPECT_NE(r.error.find("2us"), std::string::npos);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
}

TEST(SettingsFromEnvTest, LatencyAtMostOneSecond) {
  EXPECT_TRUE(SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "1s"}})).ok());
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "3s"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("more than one second"), std::string::npos);
}

TEST(SettingsFromEnvTest, LatencyTakesALawModeAndSeed) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "normal(10us,2us)"},
                                    {"VERBSEMU_LATENCY_MODE", "defer"},
                                    {"VERBSEMU_SEED", "42"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.settings.engine.latency.is_constant());
  EXPECT_NEAR(r.settings.engine.latency_ns, 10'000, 0.01);
  EXPECT_EQ(r.settings.engine.latency_mode, emulate::LatencyMode::kDefer);
  EXPECT_EQ(r.settings.engine.seed, uint64_t{42});
  auto u = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "uniform(1us,3us)"}}));
  ASSERT_TRUE(u.ok()) << u.error;
  EXPECT_DOUBLE_EQ(u.settings.engine.latency_ns, 2'000);
  EXPECT_FALSE(u.settings.engine.seed.has_value());
  for (const char* bad : {"normal(10us)", "pareto(5us,-1)", "gamma(1us,2)",
                          "replay:/nonexistent/lat.json", "uniform(3us,1us)"}) {
    auto b = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", bad}}));
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.error.find("VERBSEMU_LATENCY"), std::string::npos);
    EXPECT_EQ(b.error.find('\n'), std::string::npos) << b.error;
  }
  for (const char* bad : {"-1", "4.2", "x", "18446744073709551616"}) {
    EXPECT_FALSE(SettingsFromEnv(FakeEnv({{"VERBSEMU_SEED", bad}})).ok())
        << bad;
  }
  EXPECT_FALSE(
      SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY_MODE", "sleep"}})).ok());
}

TEST(SettingsFromEnvTest, ReadsTheLogGpKnobs) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_OVERHEAD", "2us"},
                                    {"VERBSEMU_RECV_OVERHEAD", "500ns"},
                                    {"VERBSEMU_GAP", "0.25us"},
                                    {"VERBSEMU_GAP_SCOPE", "port"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  const emulate::Config& c = r.settings.engine;
  EXPECT_DOUBLE_EQ(c.overhead_ns, 2000);
  EXPECT_DOUBLE_EQ(c.recv_overhead_ns, 500);
  EXPECT_DOUBLE_EQ(c.gap_ns, 250);
  EXPECT_EQ(c.gap_scope, emulate::GapScope::kPort);
  EXPECT_TRUE(c.emulating());
  // Each alone is something to emulate; the scope alone is not.
  for (const char* knob :
       {"VERBSEMU_OVERHEAD", "VERBSEMU_RECV_OVERHEAD", "VERBSEMU_GAP"}) {
    EXPECT_TRUE(SettingsFromEnv(FakeEnv({{knob, "1us"}})).settings.emulating())
        << knob;
  }
  EXPECT_FALSE(SettingsFromEnv(FakeEnv({{"VERBSEMU_GAP_SCOPE", "port"}}))
                   .settings.emulating());
  EXPECT_EQ(SettingsFromEnv(FakeEnv({})).settings.engine.gap_scope,
            emulate::GapScope::kQp);
}

TEST(SettingsFromEnvTest, LogGpKnobsRefuseWithOneLine) {
  const std::pair<const char*, const char*> bad[] = {
      {"VERBSEMU_OVERHEAD", "-1us"},       {"VERBSEMU_OVERHEAD", "2 parsecs"},
      {"VERBSEMU_RECV_OVERHEAD", "1xs"},   {"VERBSEMU_GAP", "3s"},
      {"VERBSEMU_GAP", "normal(1us,1ns)"}, {"VERBSEMU_GAP_SCOPE", "node"}};
  for (const auto& [knob, value] : bad) {
    auto r = SettingsFromEnv(FakeEnv({{knob, value}}));
    ASSERT_FALSE(r.ok()) << knob << "=" << value;
    EXPECT_EQ(r.error.rfind(knob, 0), 0u) << r.error;
    EXPECT_NE(r.error.find("expected"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
  const std::string unit =
      SettingsFromEnv(FakeEnv({{"VERBSEMU_GAP", "2 parsecs"}})).error;
  EXPECT_NE(unit.find("unknown unit"), std::string::npos) << unit;
  const std::string large =
      SettingsFromEnv(FakeEnv({{"VERBSEMU_OVERHEAD", "2s"}})).error;
  EXPECT_NE(large.find("more than one second"), std::string::npos) << large;
}

TEST(SettingsFromEnvTest, AmbiguousUnitsSayHowToWriteThem) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_BANDWIDTH", "3GB/s"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("ambiguous"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("GiB/s"), std::string::npos) << r.error;
  auto s = SettingsFromEnv(FakeEnv({{"VERBSEMU_PAD_THRESHOLD", "64KB"}}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("KiB"), std::string::npos) << s.error;
}

TEST(SettingsFromEnvTest, BadModeDevicesAndThreshold) {
  EXPECT_FALSE(
      SettingsFromEnv(FakeEnv({{"VERBSEMU_BW_MODE", "squeeze"}})).ok());
  EXPECT_FALSE(
      SettingsFromEnv(FakeEnv({{"VERBSEMU_DEVICES", "rxe0,,rxe1"}})).ok());
  EXPECT_FALSE(SettingsFromEnv(FakeEnv({{"VERBSEMU_DEVICES", ",rxe0"}})).ok());
  EXPECT_FALSE(SettingsFromEnv(FakeEnv({{"VERBSEMU_DEVICES", "rxe0,"}})).ok());
  EXPECT_FALSE(
      SettingsFromEnv(FakeEnv({{"VERBSEMU_PAD_THRESHOLD", "0"}})).ok());
  EXPECT_FALSE(SettingsFromEnv(FakeEnv({{"VERBSEMU_REPORT", " "}})).ok());
}

TEST(SettingsFromEnvTest, ControlBytesInAValueStayOnOneLine) {
  auto r = SettingsFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "2us\nX\x01"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("2us\\x0aX\\x01"), std::string::npos) << r.error;
}

TEST(KnobTableTest, NamesAndFlagsAreUniqueAndWellFormed) {
  std::map<std::string, int> seen;
  for (const Knob& k : Knobs()) {
    EXPECT_TRUE(k.env.starts_with("VERBSEMU_")) << k.env;
    EXPECT_TRUE(k.flag.starts_with("--")) << k.flag;
    EXPECT_FALSE(k.accepts.empty() || k.fallback.empty() || k.effect.empty())
        << k.env;
    EXPECT_EQ(++seen[std::string(k.env)], 1) << k.env;
    EXPECT_EQ(++seen[std::string(k.flag)], 1) << k.flag;
    EXPECT_EQ(FindKnobByEnv(k.env), &k);
    EXPECT_EQ(FindKnobByFlag(k.flag), &k);
  }
  EXPECT_EQ(FindKnobByEnv("VERBSEMU_NOPE"), nullptr);
}

TEST(KnobTableTest, UsageAndTableNameEveryKnob) {
  const std::string usage = KnobsUsage(), table = KnobsMarkdownTable();
  for (const Knob& k : Knobs()) {
    EXPECT_NE(usage.find(k.flag), std::string::npos) << k.flag;
    EXPECT_NE(table.find("`" + std::string(k.env) + "`"), std::string::npos);
  }
}

// docs/shim.md carries the table between markers; regenerate it with
// `bazel-bin/shim/verbsemu knobs --markdown` (base/doc_section.h).
TEST(KnobTableTest, DocsTableIsCurrent) {
  std::string table, why;
  ASSERT_TRUE(base::DocSection("docs/shim.md", "knobs", &table, &why)) << why;
  EXPECT_EQ(table, KnobsMarkdownTable())
      << "regenerate with: bazel-bin/shim/verbsemu knobs --markdown";
}

}  // namespace
}  // namespace verbsemu::shim
