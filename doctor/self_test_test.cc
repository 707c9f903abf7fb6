#include "doctor/self_test.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace verbsemu::doctor
