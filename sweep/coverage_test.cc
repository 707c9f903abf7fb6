#include "sweep/coverage.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::sweep {
namespace {

std::string Doc(int pid, const std::string& emulated = "true",
                const std::string& warnings = "") {
  return R"({"schema": "verbsemu.report/1", "pid": )" + std::to_string(pid) +
         R"(, "command": "app", "emulated": )" + emulated +
         R"(, "config_error": "", "warnings": [)" + warnings + "]}";
}

const char kInvalidating[] =
    R"({"code": "hidden-qps", "severity": "error", "invalidates": true,
        "text": "WARNING: rxe0: 1 QP of this process that the shim never saw"})";
const char kNote[] =
    R"({"code": "bypass-check-off", "severity": "note", "invalidates": false,
        "text": "bypass check off: no counters"})";

TEST(CoverageTest, EmulatedProcessesCountAndPass) {
  const Coverage c = JudgeReports({{"a.41.txt.json", Doc(41)},
                                   {"b.42.txt.json", Doc(42, "true", kNote)},
                                   // one process, reported again on signal
                                   {"b.42.again.json", Doc(42)}});
  EXPECT_TRUE(c.valid) << c.reason;
  EXPECT_EQ(c.reports, 2);
  EXPECT_EQ(JudgeReports({}).reports, 0);
}

// Two processes' waits add up; a process reported twice counts once, by
// its latest report (the one with the most waits).
TEST(CoverageTest, WaitsAddUpOverProcesses) {
  const auto with_waits = [](int pid, int count, double waited, double lost) {
    std::string d = Doc(pid);
    d.insert(d.rfind('}'), R"(, "waits": {"count": )" + std::to_string(count) +
                               R"(, "waited_ns": )" + std::to_string(waited) +
                               R"(, "lost_cpu": 1, "lost_cpu_late_ns": )" +
                               std::to_string(lost) + "}");
    return d;
  };
  const Coverage c =
      JudgeReports({{"a.1.txt.json", with_waits(1, 10, 1e4, 0)},
                    {"b.2.a.json", with_waits(2, 5, 5e3, 0)},
                    {"b.2.b.json", with_waits(2, 10, 1.2e4, 2e3)}});
  EXPECT_TRUE(c.valid) << c.reason;
  EXPECT_EQ(c.waits.count, 20);
  EXPECT_DOUBLE_EQ(c.MeanWaitNs(), 1100);
  EXPECT_DOUBLE_EQ(c.MeanOwnWaitNs(), 1000);
  EXPECT_EQ(JudgeReports({{"a.json", Doc(3)}}).MeanWaitNs(), 0);
}

TEST(CoverageTest, AnUnemulatedProcessMakesTheRunInvalid) {
  const std::pair<std::string, std::string> cases[] = {
      {Doc(9, "false"), "bad.txt.json: not emulating: configuration error"},
      {Doc(9, "true", kInvalidating),
       "bad.txt.json: hidden-qps: WARNING: rxe0: 1 QP of this process that "
       "the shim never saw"},
  };
  for (const auto& [doc, reason] : cases) {
    const Coverage c =
        JudgeReports({{"ok.txt.json", Doc(8)}, {"bad.txt.json", doc}});
    EXPECT_FALSE(c.valid) << doc;
    EXPECT_EQ(c.reason, reason);
    EXPECT_EQ(c.reports, 2);
  }
}

// The human text is never read: its WARNING lines do not invalidate, and
// a process that left only a human report counts as no report at all.
TEST(CoverageTest, OnlyTheJsonReportsAreRead) {
  const std::string human =
      "verbsemu report (pid 9): latency +2us [configuration error: not "
      "emulating]\nWARNING: rxe0: 1 QP of this process that the shim never "
      "saw\n";
  const Coverage c =
      JudgeReports({{"h.9.txt", human}, {"h.9.txt.json", Doc(9)}});
  EXPECT_TRUE(c.valid) << c.reason;
  EXPECT_EQ(c.reports, 1);
  const Coverage text_only = JudgeReports({{"h.9.txt", human}});
  EXPECT_EQ(text_only.reports, 0);
}

TEST(CoverageTest, AnUnreadableReportMakesTheRunInvalid) {
  const std::string good = Doc(5);
  std::string v2 = good;
  v2.replace(v2.find("report/1"), 8, "report/2");
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2),
       "x.json: not a complete JSON document (cut short?)"},
      {"", "x.json: empty report (the process ended while writing it?)"},
      {R"({"schema": "other"})",
       "x.json: not a verbsemu report (schema \"other\")"},
      {v2,
       "x.json: report schema verbsemu.report/2, this verbsemu reads "
       "verbsemu.report/1: run the sweep with the same build"},
  };
  for (const auto& [doc, reason] : cases) {
    const Coverage c = JudgeReports({{"x.json", doc}, {"y.json", Doc(6)}});
    EXPECT_FALSE(c.valid) << doc;
    EXPECT_EQ(c.reason, reason);
  }
}

}  // namespace
}  // namespace verbsemu::sweep
