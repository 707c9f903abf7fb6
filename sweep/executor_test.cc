#include "sweep/executor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

// The process whose pid the command wrote to `path` is gone (and reaped),
// within 5 s: killed, an orphan stays a zombie until its new parent (init,
// or in Bazel's sandbox the namespace's first process) reaps it, which
// took longer than the check under TSan.
bool Gone(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 0) return false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (kill(pid, 0) == 0 || errno != ESRCH) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(ProcessExecutorTest, ATimeoutEndsTheCommandAndWhatItStarted) {
  ProcessExecutor ex;
  const std::string pid = Log("timeout-pid");
  RunRequest req{
      {"/bin/sh", "-c", "sleep 30 & echo $! >\"$0\"; echo started; wait", pid},
      {},
      Log("timeout")};
  req.timeout_s = 0.3;
  const RunOutcome r = ex.Run(req);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe(), "timed out");
  EXPECT_LT(r.wall_s, 20);  // not the 30 s the command asked for
  EXPECT_EQ(r.output, "started\n");
  // The background sleep was in the command's group: it is gone too.
  EXPECT_TRUE(Gone(pid));
}

// Runs `script` (which gets a file to touch once its traps are set as $0)
// and sends the sweep's signals once it is ready.
RunOutcome Interrupt(const std::string& script, int signal, int times,
                     double grace_s) {
  ProcessExecutor ex;
  Interrupts interrupts;
  const std::string ready = Log("interrupt-ready");
  std::remove(ready.c_str());
  RunRequest req{{"/bin/sh", "-c", script, ready}, {}, Log("interrupt")};
  req.interrupt = &interrupts;
  req.grace_s = grace_s;
  std::thread press([&] {
    while (access(ready.c_str(), F_OK) != 0) usleep(10000);
    interrupts.signal = signal;
    interrupts.count += times;
  });
  RunOutcome r = ex.Run(req);
  press.join();
  return r;
}

TEST(ProcessExecutorTest, CtrlCIsPassedToTheCommand) {
  const RunOutcome r = Interrupt(
      "trap 'echo got INT; exit 3' INT; touch \"$0\"; "
      "while :; do sleep 0.05; done",
      SIGINT, 1, 60);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "got INT\n");
}

TEST(ProcessExecutorTest, SigtermAndSighupArePassedOnAsThemselves) {
  for (int sig : {SIGTERM, SIGHUP}) {
    const RunOutcome r = Interrupt(
        "trap 'echo got TERM; exit 4' TERM; trap 'echo got HUP; exit 5' HUP; "
        "touch \"$0\"; while :; do sleep 0.05; done",
        sig, 1, 60);
    EXPECT_EQ(r.exit_code, sig == SIGTERM ? 4 : 5) << sig;
  }
}

// An application that ignores Ctrl-C (an MPI launcher waiting on its
// ranks) is sent SIGTERM after the grace period.
TEST(ProcessExecutorTest, ARunThatIgnoresCtrlCGetsSigtermAfterTheGrace) {
  const RunOutcome r =
      Interrupt("trap '' INT; touch \"$0\"; while :; do sleep 0.05; done",
                SIGINT, 1, 0.2);
  EXPECT_EQ(r.Describe(), "killed by SIGTERM");
}

TEST(ProcessExecutorTest, ARunThatIgnoresSigtermTooGetsSigkill) {
  const RunOutcome r =
      Interrupt("trap '' INT TERM; touch \"$0\"; while :; do sleep 0.05; done",
                SIGINT, 1, 0.2);
  EXPECT_EQ(r.Describe(), "killed by SIGKILL");
}

TEST(ProcessExecutorTest, ASecondCtrlCKillsAtOnce) {
  // A grace of a minute: only the second Ctrl-C can end it in time.
  const RunOutcome r =
      Interrupt("trap '' INT TERM; touch \"$0\"; while :; do sleep 0.05; done",
                SIGINT, 2, 60);
  EXPECT_EQ(r.Describe(), "killed by SIGKILL");
  EXPECT_LT(r.wall_s, 30);
}

// A daemon or helper the command left behind would overlap the next run.
TEST(ProcessExecutorTest, ProcessesOutlivingTheLeaderAreCountedAndEnded) {
  ProcessExecutor ex;
  const std::string pids = Log("leftover-pids");
  RunRequest req{
      {"/bin/sh", "-c",
       "sleep 30 & echo $! >\"$0\"; (trap '' TERM; sleep 30) & echo done",
       pids},
      {},
      Log("leftover")};
  req.grace_s = 0.2;  // then SIGKILL for the one that ignores SIGTERM
  const RunOutcome r = ex.Run(req);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.leftovers, 2);
  EXPECT_EQ(r.output, "done\n");
  EXPECT_TRUE(Gone(pids));
}

TEST(ProcessExecutorTest, OnlyTheEndOfAHugeOutputIsKept) {
  ProcessExecutor ex(1000);
  const RunOutcome r = ex.Run({{"/bin/sh", "-c",
                                "head -c 100000 /dev/zero | tr '\\0' x; "
                                "echo; echo value t=3"},
                               {},
                               Log("huge")});
  EXPECT_EQ(r.output.size(), 1000u);
  EXPECT_TRUE(r.output.ends_with("x\nvalue t=3\n")) << r.output.substr(900);
}

TEST(ProcessExecutorTest, TheCommandReadsNothingFromTheSweepsStdin) {
  ProcessExecutor ex;
  const RunOutcome r = ex.Run({{"/bin/cat"}, {}, Log("stdin")});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "");
}

}  // namespace
}  // namespace verbsemu::sweep
