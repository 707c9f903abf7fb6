#include "doctor/self_test.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

namespace verbsemu::doctor {
namespace {

constexpr char kReport[] =
    "verbsemu report: pid 42\n"
    "device rxe1: qps 0, wrs 0, bytes 0, posts 0, delay injected 0.000 ms\n"
    "device rxe0: qps 1, wrs 1, bytes 64, posts 1, delay injected 0.001 ms, "
    "padding 0 B in 0 datagrams\n";

ChildEnd Exited(int code, std::string last_line = "") {
  ChildEnd e;
  e.exit_code = code;
  e.last_line = std::move(last_line);
  return e;
}

ChildEnd TimedOut() {
  ChildEnd e;
  e.timed_out = true;
  return e;
}

TEST(SelfTestArgv, RunsItselfThroughTheLauncher) {
  EXPECT_EQ(SelfTestArgv("/bin/verbsemu", "/tmp/r", "rxe0"),
            (std::vector<std::string>{"/bin/verbsemu", "run", "--report",
                                      "/tmp/r", "--latency", "1us", "--devices",
                                      "rxe0", "--", "/bin/verbsemu", "doctor",
                                      "--self-test-child", "rxe0"}));
}

TEST(JudgeSelfTest, DeviceLineWithQpAndWrIsOk) {
  const Finding f = JudgeSelfTest("rxe0", kReport, Exited(0));
  EXPECT_EQ(f.kind, Finding::Kind::kOk);
  EXPECT_EQ(f.text,
            "self-test on rxe0: an RC QP of a privately loaded libibverbs "
            "(NCCL's way) was emulated: device rxe0: qps 1, wrs 1");
}

TEST(JudgeSelfTest, NoWrOrNoReportIsAProblem) {
  Finding f = JudgeSelfTest("rxe1", kReport, Exited(0));
  EXPECT_TRUE(f.problem());
  EXPECT_NE(f.text.find("does not show the QP's WR on rxe1"),
            std::string::npos);
  f = JudgeSelfTest("rxe0", std::nullopt, Exited(0));
  EXPECT_TRUE(f.problem());
  EXPECT_NE(f.text.find("the shim wrote no report"), std::string::npos);
  // A device whose name only starts the same.
  f = JudgeSelfTest("rxe", kReport, Exited(0));
  EXPECT_TRUE(f.problem());
}

TEST(JudgeSelfTest, ChildFailureAndTimeoutSayWhy) {
  Finding f = JudgeSelfTest(
      "rxe0", kReport,
      Exited(1, "verbsemu doctor: self-test child: no completion"));
  EXPECT_EQ(f.text,
            "self-test on rxe0: failed (exit 1: verbsemu doctor: self-test "
            "child: no completion)");
  ChildEnd crashed;
  crashed.signal = 11;
  EXPECT_EQ(JudgeSelfTest("rxe0", std::nullopt, crashed).text,
            "self-test on rxe0: failed (killed by signal 11: no output)");
  f = JudgeSelfTest("rxe0", std::nullopt, TimedOut());
  EXPECT_EQ(f.text, "self-test on rxe0: no end within the timeout (no output)");
}

// A child that cannot be started: one problem line, no hang.
TEST(ProcessSelfTest, MissingBinaryIsAProblem) {
  const ProcessSelfTest t("/no/such/verbsemu", 5);
  const Findings f = t.Run("rxe0");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].problem());
  EXPECT_NE(f[0].text.find("exit 127"), std::string::npos) << f[0].text;
}

// A stand-in for this binary: a script that gets the launcher's arguments.
std::string Script(const std::string& name, const std::string& body) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0700);
  return path;
}

// The parent's side end to end: the arguments it passes, the report it
// reads back, the temporary directory it cleans up.
TEST(ProcessSelfTest, ReadsTheReportTheRunLeft) {
  const std::string self =
      Script("fake_verbsemu",
             "[ \"$1 $2 $4 $5 $6 $7 $8 ${10} ${11} ${12}\" = \"run --report "
             "--latency 1us --devices "
             "fake0 -- doctor --self-test-child fake0\" ] || { echo \"bad "
             "arguments: $*\"; exit 3; }\n"
             "echo \"device fake0: qps 1, wrs 2, bytes 64\" >>\"$3\"\n");
  // Its temporary directory goes in an empty TMPDIR, which it leaves empty.
  char tmp[] = "/tmp/doctor_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmp), nullptr);
  setenv("TMPDIR", tmp, 1);
  const Findings f = ProcessSelfTest(self, 5).Run("fake0");
  unsetenv("TMPDIR");
  EXPECT_EQ(rmdir(tmp), 0) << "left something in " << tmp;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(FormatFinding(f[0]),
            "ok: self-test on fake0: an RC QP of a privately loaded "
            "libibverbs (NCCL's way) was emulated: device fake0: qps 1, wrs 2");
}

TEST(ProcessSelfTest, AHungChildIsKilledAtTheTimeout) {
  const std::string self =
      Script("hung_verbsemu", "echo started\nexec sleep 30\n");
  const auto t0 = std::chrono::steady_clock::now();
  const Findings f = ProcessSelfTest(self, 1).Run("fake0");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].text,
            "self-test on fake0: no end within the timeout (started)");
}

}  // namespace
}  // namespace verbsemu::doctor
