#include "sweep/executor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

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

TEST(ProcessExecutorTest, ATimeoutEndsTheCommandAndWhatItStarted) {
  ProcessExecutor ex;
  RunRequest req{
      {"/bin/sh", "-c", "sleep 30 & echo started; wait"}, {}, Log("timeout")};
  req.timeout_s = 0.3;
  const RunOutcome r = ex.Run(req);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe(), "timed out");
  EXPECT_LT(r.wall_s, 20);  // not the 30 s the command asked for
  EXPECT_EQ(r.output, "started\n");
  // The background sleep was in the command's group: it is gone too.
  EXPECT_NE(std::system("pgrep -f '^sleep 30$' >/dev/null"), 0);
}

TEST(ProcessExecutorTest, CtrlCIsPassedToTheCommand) {
  ProcessExecutor ex;
  std::atomic<bool> interrupt{false};
  const std::string ready = Log("interrupt-ready");
  std::remove(ready.c_str());
  RunRequest req{{"/bin/sh", "-c",
                  "trap 'echo got INT; exit 3' INT; touch \"$0\"; "
                  "while :; do sleep 0.05; done",
                  ready},
                 {},
                 Log("interrupt")};
  req.interrupt = &interrupt;
  // Ctrl-C once the command has set its trap.
  std::thread press([&] {
    while (access(ready.c_str(), F_OK) != 0) usleep(10000);
    interrupt = true;
  });
  const RunOutcome r = ex.Run(req);
  press.join();
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "got INT\n");
}

TEST(ProcessExecutorTest, TheCommandReadsNothingFromTheSweepsStdin) {
  ProcessExecutor ex;
  const RunOutcome r = ex.Run({{"/bin/cat"}, {}, Log("stdin")});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "");
}

}  // namespace
}  // namespace verbsemu::sweep
