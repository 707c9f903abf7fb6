// The shim's warnings table and JSON report over the fake device: every
// warning in the table prints its text and is listed, with its code, in
// the JSON report beside the human one; the report reader judges the
// document the shim wrote; the human texts the test bed matches stay put.
#include "shim/internal/report_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/reader.h"
#include "shim/internal/hidden_qps.h"
#include "shim/internal/registry.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"
#include "shim/internal/warnings.h"

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ostringstream text;
  text << std::ifstream(p).rdbuf();
  return text.str();
}

class ReportJsonTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
           ("report-json-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Settings s;
    s.engine.latency_ns = 1'000;
    s.report = (dir_ / "r.%p.txt").string();
    Configure(s);
  }
  void TearDown() override {
    SetKernelQpSourceForTesting(nullptr);
    ShimTest::TearDown();
    fs::remove_all(dir_);
  }
  fs::path Human() const {
    return dir_ / ("r." + std::to_string(getpid()) + ".txt");
  }
  // The JSON report WriteReport left beside the human one, read.
  report::ShimReport WrittenReport() const {
    const std::string text = Slurp(Human().string() + ".json");
    std::string why;
    auto r = report::ParseReport(text, &why);
    EXPECT_TRUE(r.has_value()) << why << "\n" << text;
    return r.value_or(report::ShimReport{});
  }

  fs::path dir_;
};

// Each code: printed once as "verbsemu: TEXT", its {} filled in order, and
// listed in the JSON report with its code, severity and verdict.
TEST_F(ReportJsonTest, EveryWarningIsPrintedAndListedWithItsCode) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ASSERT_NE(r.qp, nullptr);
  for (const WarningInfo& info : kWarnings) {
    SCOPED_TRACE(info.code);
    ClearRecordedWarningsForTesting();
    fs::remove(Human());
    const std::string text = WarningText(info.id, {"A", "B", "C", "D"});
    EXPECT_EQ(text.find("{}"), std::string::npos) << text;
    ::testing::internal::CaptureStderr();
    Warn(info.id, {"A", "B", "C", "D"});
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "verbsemu: " + text + "\n");
    WriteReport();
    const report::ShimReport rep = WrittenReport();
    ASSERT_EQ(rep.warnings.size(), 1u);
    EXPECT_EQ(rep.warnings[0].code, info.code);
    EXPECT_EQ(rep.warnings[0].text, text);
    EXPECT_EQ(rep.warnings[0].invalidates, info.invalidates);
    EXPECT_EQ(rep.warnings[0].severity, SeverityName(info.severity));
    EXPECT_EQ(report::NotEmulated(rep).empty(), !info.invalidates);
  }
}

TEST_F(ReportJsonTest, CodesAreDistinct) {
  for (size_t i = 0; i < kWarningCount; ++i) {
    EXPECT_EQ(static_cast<size_t>(kWarnings[i].id), i);
    for (size_t j = 0; j < i; ++j) {
      EXPECT_STRNE(kWarnings[i].code, kWarnings[j].code);
    }
  }
}

// The lines the Soft-RoCE test bed and users grep for, word for word.
TEST_F(ReportJsonTest, TheHumanTextsAreUnchanged) {
  EXPECT_EQ(
      WarningText(WarningCode::kHiddenQps, {"rxe0", "1", "QP", "0x000011"})
          .rfind("WARNING: rxe0: 1 QP of this process that the shim "
                 "never saw (0x000011), says the kernel: their traffic "
                 "was not emulated",
                 0),
      0u);
  EXPECT_EQ(WarningText(WarningCode::kBoundaryFault, {"a", "b", "c"}),
            "a: b; c");
  EXPECT_EQ(WarningText(WarningCode::kBypassCheckOff, {"why"}),
            "bypass check off: why");
  EXPECT_EQ(WarningText(WarningCode::kConfigError, {"VERBSEMU_X: bad"}),
            "VERBSEMU_X: bad");
}

// Driven through the condition itself: a QP the kernel lists and the shim
// never saw, found when the report is written.
TEST_F(ReportJsonTest, AHiddenQpMakesTheProcessUnemulated) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ASSERT_NE(r.qp, nullptr);
  SetKernelQpSourceForTesting([] {
    KernelQpList l;
    l.ok = true;
    l.qps = {{"fake0", 0x777, static_cast<uint32_t>(getpid()), 2}};
    return l;
  });
  CheckHiddenQpsNow();
  ::testing::internal::CaptureStderr();
  WriteReport();
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("verbsemu: WARNING: fake0: 1 QP of this process"),
            std::string::npos)
      << printed;
  EXPECT_NE(Slurp(Human()).find("\nWARNING: fake0: 1 QP of this process"),
            std::string::npos);
  const report::ShimReport rep = WrittenReport();
  EXPECT_EQ(
      report::NotEmulated(rep).rfind("hidden-qps: WARNING: fake0: 1 QP", 0), 0u)
      << report::NotEmulated(rep);
}

// The engine falling back to pass-through after a device was opened (as a
// failed TSC calibration does): the human header says so, and the JSON.
TEST_F(ReportJsonTest, APassThroughFallbackIsNotEmulated) {
  FakeDevice d("fake0");
  ibv_context* ctx = Open(d);
  {
    std::lock_guard<std::mutex> lock(E().mu);
    PassThroughLocked(E(), "clock did not advance; running without emulation");
  }
  ::testing::internal::CaptureStderr();
  WriteReport();
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_NE(Slurp(Human()).find("[configuration error: not emulating]"),
            std::string::npos);
  const report::ShimReport rep = WrittenReport();
  EXPECT_FALSE(rep.emulated);
  EXPECT_EQ(report::NotEmulated(rep),
            "not emulating: configuration error: clock did not advance; "
            "running without emulation");
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_EQ(rep.warnings[0].code, "config-error");
  EXPECT_EQ(CloseDevice(ctx), 0);
}

// The document's fields: the process, the settings, devices, ports, QPs.
TEST_F(ReportJsonTest, TheDocumentDescribesTheProcess) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 4096, IBV_WR_RDMA_WRITE);
  ASSERT_EQ(Post(r.qp, ch), 0);
  (void)ReportText();
  const auto doc = nlohmann::json::parse(ReportJson());
  EXPECT_EQ(doc["schema"], "verbsemu.report/1");
  EXPECT_EQ(doc["pid"], getpid());
  EXPECT_NE(doc["command"].get<std::string>().find("report_json_test"),
            std::string::npos)
      << doc["command"];
  EXPECT_EQ(doc["emulated"], true);
  EXPECT_EQ(doc["settings"]["latency_ns"], 1'000);
  ASSERT_EQ(doc["devices"].size(), 1u) << doc.dump(1);
  EXPECT_EQ(doc["devices"][0]["name"], "fake0");
  EXPECT_EQ(doc["devices"][0]["qps"], 1);
  EXPECT_EQ(doc["devices"][0]["counters"]["bytes"], 4096);
  ASSERT_EQ(doc["qps"].size(), 1u);
  EXPECT_EQ(doc["qps"][0]["type"], "RC");
  EXPECT_EQ(doc["qps"][0]["emulated"], true);
  EXPECT_EQ(doc["qps"][0]["counters"]["wrs"], 1);
  EXPECT_TRUE(doc["warnings"].empty());
  // The one post waited its 1 us (at least the deadline, less the spin's
  // calibrated fixed cost), and the reader takes the waits.
  EXPECT_EQ(doc["waits"]["count"], 1) << doc.dump(1);
  EXPECT_GE(doc["waits"]["waited_ns"].get<double>(), 900);
  EXPECT_NEAR(doc["waits"]["lost_cpu_above_ns"].get<double>(), 1000, 1);
  std::string why;
  const auto parsed = report::ParseReport(doc.dump(), &why);
  ASSERT_TRUE(parsed && parsed->waits) << why;
  EXPECT_EQ(parsed->waits->count, 1);
}

TEST(JsonReportPathTest, BesideTheHumanReportOnePerProcess) {
  EXPECT_EQ(JsonReportPath("/d/%h.%p.txt", "/d/h.7.txt", 7), "/d/h.7.txt.json");
  // One human file for several processes: a JSON document each.
  EXPECT_EQ(JsonReportPath("/d/all.txt", "/d/all.txt", 7), "/d/all.txt.7.json");
}

TEST(WriteJsonReportTest, ReplacesTheDocumentWhole) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path p = fs::path(tmp != nullptr ? tmp : "/tmp") /
                     ("replace-" + std::to_string(getpid()) + ".json");
  std::string why;
  ASSERT_TRUE(WriteJsonReport(p.string(), "{\"a\": 1, \"long\": true}", &why))
      << why;
  ASSERT_TRUE(WriteJsonReport(p.string(), "{\"a\": 2}", &why)) << why;
  EXPECT_EQ(Slurp(p), "{\"a\": 2}");
  EXPECT_FALSE(fs::exists(p.string() + ".tmp" + std::to_string(gettid())));
  EXPECT_FALSE(WriteJsonReport("/nonexistent-dir/x.json", "{}", &why));
  EXPECT_EQ(why.find('\n'), std::string::npos);
  fs::remove(p);
}

}  // namespace
}  // namespace verbsemu::shim::internal
