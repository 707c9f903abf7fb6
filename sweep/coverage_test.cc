#include "sweep/coverage.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

const char kGood[] =
    "verbsemu report (pid 41): latency +2us, bandwidth native, TSC 2.1 GHz\n"
    "device rxe0: qps 1, wrs 100, bytes 6400\n";

TEST(CoverageTest, EmulatedProcessesCountAndPass) {
  const Coverage c = JudgeReports(
      {{"a.41.txt", kGood}, {"b.42.txt", std::string(kGood) + kGood}});
  EXPECT_TRUE(c.valid) << c.reason;
  EXPECT_EQ(c.reports, 2);  // the second file: one process, two reports
  EXPECT_EQ(JudgeReports({}).reports, 0);
}

TEST(CoverageTest, AnyNotEmulatedLineMakesTheRunInvalid) {
  const std::string cases[] = {
      "verbsemu report (pid 9): latency +2us [configuration error: not "
      "emulating]\n",
      std::string(kGood) +
          "WARNING: rxe0 port 1 sent 5000 packets that no "
          "shim process posted\n",
      std::string(kGood) +
          "WARNING 2 objects made through mlx5 direct verbs\n"};
  for (const std::string& text : cases) {
    const Coverage c = JudgeReports({{"ok.txt", kGood}, {"bad.txt", text}});
    EXPECT_FALSE(c.valid) << text;
    EXPECT_TRUE(c.reason.starts_with("bad.txt: ")) << c.reason;
  }
}

}  // namespace
}  // namespace verbsemu::sweep
