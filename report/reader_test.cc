#include "report/reader.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::report {
namespace {

const char kGood[] = R"({"schema": "verbsemu.report/1", "pid": 41,
  "command": "ib_send_lat -n 5", "emulated": true, "config_error": "",
  "devices": [], "qps": [],
  "warnings": [{"code": "bypass-check-off", "severity": "note",
                "invalidates": false, "text": "bypass check off: x"}]})";

std::string ErrorOf(const std::string& text) {
  std::string why;
  EXPECT_FALSE(ParseReport(text, &why).has_value()) << text;
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  return why;
}

TEST(ReaderTest, ReadsAGoodReport) {
  std::string why;
  const auto r = ParseReport(kGood, &why);
  ASSERT_TRUE(r.has_value()) << why;
  EXPECT_EQ(r->pid, 41);
  EXPECT_EQ(r->command, "ib_send_lat -n 5");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].code, "bypass-check-off");
  EXPECT_EQ(NotEmulated(*r), "");  // a note does not invalidate
}

TEST(ReaderTest, WaitsAreReadWhenPresent) {
  std::string why;
  EXPECT_FALSE(ParseReport(kGood, &why)->waits.has_value());
  std::string doc = kGood;
  doc.insert(doc.rfind('}'),
             R"(, "waits": {"count": 4, "waited_ns": 4100.5, "late_ns": 20,
                 "lost_cpu": 1, "lost_cpu_late_ns": 90.5,
                 "lost_cpu_above_ns": 1000})");
  const auto r = ParseReport(doc, &why);
  ASSERT_TRUE(r.has_value()) << why;
  ASSERT_TRUE(r->waits.has_value());
  EXPECT_EQ(r->waits->count, 4);
  EXPECT_EQ(r->waits->waited_ns, 4100.5);
  EXPECT_EQ(r->waits->lost_cpu, 1);
  EXPECT_EQ(r->waits->lost_cpu_late_ns, 90.5);
  std::string bad = kGood;
  bad.insert(bad.rfind('}'), R"(, "waits": {"count": -1})");
  EXPECT_EQ(ErrorOf(bad),
            "waits: field \"count\" missing or not a number of at least 0");
  bad = kGood;
  bad.insert(bad.rfind('}'), R"(, "waits": 3)");
  EXPECT_EQ(ErrorOf(bad),
            "waits: field \"count\" missing or not a number of at least 0");
}

TEST(ReaderTest, AnInvalidatingWarningOrAConfigErrorIsNotEmulated) {
  std::string why;
  auto r = ParseReport(kGood, &why);
  ASSERT_TRUE(r.has_value()) << why;
  r->warnings.push_back({"hidden-qps", "error", true, "WARNING: rxe0: ..."});
  EXPECT_EQ(NotEmulated(*r), "hidden-qps: WARNING: rxe0: ...");
  r->warnings.clear();
  r->emulated = false;
  r->config_error = "VERBSEMU_LATENCY: bad";
  EXPECT_EQ(NotEmulated(*r),
            "not emulating: configuration error: VERBSEMU_LATENCY: bad");
}

TEST(ReaderTest, AForeignDocumentSaysSo) {
  EXPECT_EQ(ErrorOf(R"({"schema": "other/1", "pid": 1})"),
            "not a verbsemu report (schema \"other/1\")");
  EXPECT_EQ(ErrorOf("[1, 2]"), "not a verbsemu report (no \"schema\")");
  EXPECT_EQ(ErrorOf(R"({"pid": 1})"), "not a verbsemu report (no \"schema\")");
}

TEST(ReaderTest, AnotherVersionSaysWhichAndWhatToDo) {
  std::string doc = kGood;
  doc.replace(doc.find("report/1"), 8, "report/2");
  EXPECT_EQ(ErrorOf(doc),
            "report schema verbsemu.report/2, this verbsemu reads "
            "verbsemu.report/1: run the sweep with the same build");
}

TEST(ReaderTest, ACutDocumentIsNotRead) {
  const std::string doc = kGood;
  for (size_t n : {size_t{0}, size_t{1}, doc.size() / 2, doc.size() - 1}) {
    const std::string why = ErrorOf(doc.substr(0, n));
    EXPECT_TRUE(why == "not a complete JSON document (cut short?)" ||
                why == "empty report (the process ended while writing it?)")
        << why;
  }
}

TEST(ReaderTest, MissingOrMistypedFieldsAreNamed) {
  const std::string base = kGood;
  const std::pair<std::string, std::string> cases[] = {
      {"\"pid\": 41", "field \"pid\" missing or not a positive integer"},
      {"\"emulated\": true", "field \"emulated\" missing or not true/false"},
      {"\"invalidates\": false",
       "warning: field \"invalidates\" missing or not true/false"},
  };
  for (const auto& [field, want] : cases) {
    std::string doc = base;
    const size_t at = doc.find(field);
    ASSERT_NE(at, std::string::npos) << field;
    doc.replace(at, field.size(), field.substr(0, field.find(':')) + ": \"x\"");
    EXPECT_EQ(ErrorOf(doc), want);
  }
}

}  // namespace
}  // namespace verbsemu::report
