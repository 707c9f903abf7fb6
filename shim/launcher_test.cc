#include "shim/launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace verbsemu::shim {
namespace {

const char* NoEnv(const char*) { return nullptr; }

TEST(LauncherTest, RunWithFlags) {
  LaunchPlan p =
      ParseLauncherArgs({"run", "--latency", "2us", "--bandwidth=40%",
                         "--bw-mode", "pace", "--", "ib_send_lat", "-a"},
                        NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.mode, LaunchPlan::Mode::kRun);
  ASSERT_EQ(p.env.size(), 3u);
  EXPECT_EQ(p.env[0].first, "VERBSEMU_LATENCY");
  EXPECT_EQ(p.env[1].second, "40%");
  EXPECT_EQ(p.command, (std::vector<std::string>{"ib_send_lat", "-a"}));
}

// Knobs each right that disagree are refused at launch, as the shim would
// refuse them at start: one line.
TEST(LauncherTest, KnobsThatDisagreeAreRefusedTogether) {
  LaunchPlan p = ParseLauncherArgs(
      {"run", "--fabric", "ib-hol", "--penalties", "maxmin", "--", "true"},
      NoEnv);
  EXPECT_FALSE(p.ok());
  EXPECT_NE(p.error.find("VERBSEMU_PENALTIES"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("give them once"), std::string::npos) << p.error;
  EXPECT_EQ(p.error.find('\n'), std::string::npos);
  // One from the environment, one given.
  p = ParseLauncherArgs({"run", "--penalties", "maxmin", "--", "true"},
                        [](const char* name) -> const char* {
                          return std::string(name) == "VERBSEMU_FABRIC"
                                     ? "penalty:mm2011-edge"
                                     : nullptr;
                        });
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(
      ParseLauncherArgs({"run", "--fabric", "ib-hol", "--", "true"}, NoEnv)
          .ok());
}

TEST(LauncherTest, CommandWithoutDoubleDash) {
  LaunchPlan p =
      ParseLauncherArgs({"run", "--latency=1us", "ibv_rc_pingpong"}, NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.command, (std::vector<std::string>{"ibv_rc_pingpong"}));
}

TEST(LauncherTest, ReportSignalFlag) {
  LaunchPlan p = ParseLauncherArgs(
      {"run", "--report", "stderr", "--report-signal", "USR2", "--", "true"},
      NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.env.size(), 2u);
  EXPECT_EQ(p.env[1].first, "VERBSEMU_REPORT_SIGNAL");
  EXPECT_EQ(p.env[1].second, "USR2");
  LaunchPlan bad = ParseLauncherArgs(
      {"run", "--report-signal", "TERM", "--", "true"}, NoEnv);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("USR1 or USR2"), std::string::npos);
}

TEST(LauncherTest, BadValueIsOneLineNamingVariable) {
  LaunchPlan p =
      ParseLauncherArgs({"run", "--latency", "fast", "--", "true"}, NoEnv);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error.find("VERBSEMU_LATENCY"), std::string::npos);
  EXPECT_NE(p.error.find("1500ns"), std::string::npos);
  EXPECT_EQ(p.error.find('\n'), std::string::npos);
}

TEST(LauncherTest, BadInheritedVariableIsRejected) {
  LaunchPlan p = ParseLauncherArgs({"run", "--", "true"}, [](const char* n) {
    return std::string(n) == "VERBSEMU_BW_MODE" ? "squeeze" : nullptr;
  });
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error.find("VERBSEMU_BW_MODE"), std::string::npos);
}

TEST(LauncherTest, MissingCommandAndUnknownOption) {
  EXPECT_FALSE(ParseLauncherArgs({"run", "--latency", "1us"}, NoEnv).ok());
  EXPECT_FALSE(
      ParseLauncherArgs({"run", "--speed", "1", "--", "x"}, NoEnv).ok());
  EXPECT_FALSE(ParseLauncherArgs({"launch"}, NoEnv).ok());
  EXPECT_FALSE(ParseLauncherArgs({"run", "--latency"}, NoEnv).ok());
}

// The settings keep the order their flags were first given in; a flag
// given again sets its value, not a second line.
TEST(LauncherTest, FlagOrderAndTheLastOfARepeatedFlag) {
  const LaunchPlan p = ParseLauncherArgs(
      {"env", "--bandwidth", "40%", "--latency=1us", "--bandwidth=25Gbit/s",
       "--format", "srun", "--format=mpirun"},
      NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.env, (std::vector<std::pair<std::string, std::string>>{
                       {"VERBSEMU_BANDWIDTH", "25Gbit/s"},
                       {"VERBSEMU_LATENCY", "1us"}}));
  EXPECT_EQ(p.format, LaunchPlan::Format::kMpirun);
}

// A flag's value is the next argument whatever it looks like, and the
// command keeps its own options.
TEST(LauncherTest, ValuesAndTheCommandAreTakenAsGiven) {
  LaunchPlan p = ParseLauncherArgs(
      {"run", "--report", "-", "--", "-x", "--latency", "fast", "--help"},
      NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.env[0].second, "-");
  EXPECT_FALSE(p.help);
  EXPECT_EQ(p.command,
            (std::vector<std::string>{"-x", "--latency", "fast", "--help"}));
  p = ParseLauncherArgs({"run", "--latency", "--", "true"}, NoEnv);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error.find("--latency: VERBSEMU_LATENCY='--'"), 0u) << p.error;
}

TEST(LauncherTest, HelpForEachSubcommand) {
  for (const char* mode : {"run", "env", "knobs"}) {
    const LaunchPlan p = ParseLauncherArgs({mode, "--help"}, NoEnv);
    ASSERT_TRUE(p.ok()) << p.error;
    EXPECT_TRUE(p.help) << mode;
    const std::string help = LauncherHelp(p.mode);
    EXPECT_EQ(help.find(std::string("usage: verbsemu ") + mode), 0u) << help;
    EXPECT_NE(help.find("--format"), std::string::npos) << help;
  }
  EXPECT_TRUE(ParseLauncherArgs({"run", "--latency", "1us", "-h"}, NoEnv).help);
  const std::string run = LauncherHelp(LaunchPlan::Mode::kRun);
  EXPECT_NE(run.find("--latency D"), std::string::npos) << run;
  EXPECT_NE(run.find("VERBSEMU_LATENCY"), std::string::npos) << run;
  EXPECT_NE(LauncherHelp(LaunchPlan::Mode::kKnobs).find("--markdown"),
            std::string::npos);
}

// Each refusal is one line naming what to fix.
TEST(LauncherTest, RefusalsNameTheirArgument) {
  const auto error = [](const std::vector<std::string>& args) {
    const LaunchPlan p = ParseLauncherArgs(args, NoEnv);
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
    return p.error;
  };
  EXPECT_NE(error({"run", "--speed", "1", "--", "x"}).find("'--speed'"),
            std::string::npos);
  EXPECT_NE(error({"env", "--latency"}).find("'--latency'"), std::string::npos);
  EXPECT_NE(error({"env", "--markdown"}).find("'--markdown'"),
            std::string::npos);
  EXPECT_EQ(error({"env", "--", "x"}), "env takes no command");
  EXPECT_EQ(error({"knobs", "x"}), "knobs takes no command");
  EXPECT_EQ(error({"env", "--format", "markdown"}),
            "--format='markdown' is not accepted; expected lines, mpirun or "
            "srun");
  EXPECT_NE(error({"run", "--\n", "x"}).find("'--\\x0a'"), std::string::npos);
}

TEST(LauncherTest, KnobsTakesMarkdownAndTheKnobFlags) {
  LaunchPlan p = ParseLauncherArgs({"knobs", "--markdown"}, NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.format, LaunchPlan::Format::kMarkdown);
  p = ParseLauncherArgs({"knobs", "--format=markdown", "--latency", "1us"},
                        NoEnv);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.format, LaunchPlan::Format::kMarkdown);
  EXPECT_FALSE(ParseLauncherArgs({"knobs", "--latency", "x"}, NoEnv).ok());
}

TEST(LauncherTest, EnvLinesPrependPreload) {
  LaunchPlan p = ParseLauncherArgs({"env", "--latency", "2us"}, NoEnv);
  ASSERT_TRUE(p.ok());
  auto lines = EnvLines(p, "/x/libverbsemu.so", "/y/other.so");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "LD_PRELOAD=/x/libverbsemu.so:/y/other.so");
  EXPECT_EQ(lines[1], "VERBSEMU_LATENCY=2us");
}

TEST(LauncherTest, MpirunAndSrunFormats) {
  LaunchPlan p = ParseLauncherArgs(
      {"env", "--format", "mpirun", "--bandwidth", "25Gbit/s"}, NoEnv);
  ASSERT_TRUE(p.ok());
  auto lines = EnvLines(p, "/x/libverbsemu.so", nullptr);
  EXPECT_EQ(lines[0], "-x LD_PRELOAD=/x/libverbsemu.so");
  EXPECT_EQ(lines[1], "-x VERBSEMU_BANDWIDTH=25Gbit/s");
  p = ParseLauncherArgs({"env", "--format=srun", "--latency=1us"}, NoEnv);
  ASSERT_TRUE(p.ok());
  lines = EnvLines(p, "/x/l.so", nullptr);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "--export=ALL,LD_PRELOAD=/x/l.so,VERBSEMU_LATENCY=1us,"
            "FI_EFA_USE_DATA_PATH_DIRECT=0");
}

// srun splits --export=ALL,K=V,... at commas: a value with one would reach
// the ranks cut short and leave them unemulated.
TEST(LauncherTest, TheSrunFormatRefusesAValueWithAComma) {
  const LaunchPlan p = ParseLauncherArgs(
      {"env", "--format=srun", "--latency=normal(10us,2us)"}, NoEnv);
  EXPECT_FALSE(p.ok());
  EXPECT_NE(p.error.find("VERBSEMU_LATENCY=normal(10us,2us) has a comma"),
            std::string::npos)
      << p.error;
  EXPECT_EQ(p.error.find('\n'), std::string::npos);
  // The other formats carry it whole.
  EXPECT_TRUE(
      ParseLauncherArgs(
          {"env", "--format=mpirun", "--latency=normal(10us,2us)"}, NoEnv)
          .ok());
}

// libfabric's EFA provider would write work requests into the device's
// queues itself (no verb per message): both `run` and `env` turn that off,
// unless the user chose a value.
TEST(LauncherTest, EfaDirectDataPathOffUnlessTheUserSetIt) {
  for (const char* mode : {"run", "env"}) {
    std::vector<std::string> args = {mode, "--latency", "1us"};
    if (std::string(mode) == "run") args.push_back("true");
    LaunchPlan p = ParseLauncherArgs(args, NoEnv);
    ASSERT_TRUE(p.ok()) << p.error;
    const auto lines = EnvLines(p, "/x/l.so", nullptr);
    EXPECT_EQ(lines.back(), "FI_EFA_USE_DATA_PATH_DIRECT=0") << mode;
    p = ParseLauncherArgs(args, [](const char* n) {
      return std::string(n) == "FI_EFA_USE_DATA_PATH_DIRECT" ? "1" : nullptr;
    });
    ASSERT_TRUE(p.ok()) << p.error;
    for (const std::string& l : EnvLines(p, "/x/l.so", nullptr)) {
      EXPECT_EQ(l.find("FI_EFA"), std::string::npos) << mode << ": " << l;
    }
  }
}

}  // namespace
}  // namespace verbsemu::shim
