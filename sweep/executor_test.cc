#include "sweep/executor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace verbsemu::sweep {
namespace {

std::string Log(const char* name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name + "." +
         std::to_string(getpid()) + ".log";
}

TEST(ProcessExecutorTest, OutputEnvironmentAndStatus) {
  ProcessExecutor ex;
  const RunOutcome ok = ex.Run(
      {{"/bin/sh", "-c", "echo out $VERBSEMU_LATENCY; echo err >&2; exit 3"},
       {{"VERBSEMU_LATENCY", "2us"}},
       Log("status")});
  EXPECT_TRUE(ok.started);
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_FALSE(ok.ok());
  EXPECT_EQ(ok.Describe(), "exit 3");
  EXPECT_EQ(ok.output, "out 2us\nerr\n");
  EXPECT_GT(ok.wall_s, 0);
}

TEST(ProcessExecutorTest, SignalsAndMissingPrograms) {
  ProcessExecutor ex;
  const RunOutcome killed =
      ex.Run({{"/bin/sh", "-c", "kill -KILL $$"}, {}, Log("signal")});
  EXPECT_EQ(killed.signal, 9);
  EXPECT_EQ(killed.Describe(), "killed by SIGKILL");
  const RunOutcome missing = ex.Run({{"/no/such/program"}, {}, Log("missing")});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.output.find("cannot run '/no/such/program'"),
            std::string::npos);
  const RunOutcome nolog = ex.Run({{"/bin/true"}, {}, "/no/such/dir/x.log"});
  EXPECT_FALSE(nolog.started);
  EXPECT_NE(nolog.error.find("/no/such/dir/x.log"), std::string::npos);
}

TEST(ProcessExecutorTest, TheCommandReadsNothingFromTheSweepsStdin) {
  ProcessExecutor ex;
  const RunOutcome r = ex.Run({{"/bin/cat"}, {}, Log("stdin")});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "");
}

}  // namespace
}  // namespace verbsemu::sweep
