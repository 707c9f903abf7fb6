#include "tools/fit/lop_data.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::fit {
namespace {

using nlohmann::json;

constexpr char kSample[] = "tools/fit/testdata/lop_rxe16.json";

TEST(LopDataTest, ParsesRealisticSample) {
  LopRun run = LoadLop(kSample);
  ASSERT_EQ(run.curves.size(), 9u);
  EXPECT_EQ(run.device["name"], "rxe0");
  EXPECT_EQ(run.params["peers"], 16);

  const LopCurve& rtt = run.curves[0];
  EXPECT_EQ(rtt.name, "rtt2_1n_send_inline");
  EXPECT_EQ(rtt.kind, CurveKind::kRtt);
  EXPECT_EQ(rtt.pattern, "1:n");
  EXPECT_EQ(rtt.op, "send");
  ASSERT_TRUE(rtt.is_inline.has_value());
  EXPECT_TRUE(*rtt.is_inline);
  EXPECT_FALSE(rtt.list);
  ASSERT_EQ(rtt.points.size(), 16u);
  EXPECT_EQ(rtt.points[0].p, 1);
  EXPECT_EQ(rtt.points[15].p, 16);
  EXPECT_DOUBLE_EQ(rtt.Value(0, Stat::kMin), 8586.6);
  EXPECT_DOUBLE_EQ(rtt.Value(0, Stat::kMedian), 9223.7);
  EXPECT_DOUBLE_EQ(rtt.Value(0, Stat::kMean), 9575.7);
  EXPECT_EQ(rtt.points[0].samples, 20000);

  const LopCurve& os_list = run.curves[5];
  EXPECT_EQ(os_list.name, "os_send_list");
  EXPECT_EQ(os_list.kind, CurveKind::kOverhead);
  EXPECT_EQ(os_list.side, "send");
  EXPECT_TRUE(os_list.list);
  EXPECT_FALSE(os_list.is_inline.has_value());

  EXPECT_EQ(run.curves[8].kind, CurveKind::kLatency);
  // The latency curve carries no p99.
  EXPECT_FALSE(run.curves[8].points[0].p99_ns.has_value());
}

json Minimal() {
  return json::parse(R"({"tool":"verbsbench","mode":"lop","lop":{"curves":[
    {"name":"os","kind":"overhead","side":"send","points":[
      {"p":2,"median_ns":20},{"p":1,"median_ns":30}]}]}})");
}

TEST(LopDataTest, P50IsAcceptedAsMedian) {
  json d = Minimal();
  d["lop"]["curves"][0]["points"][0].erase("median_ns");
  d["lop"]["curves"][0]["points"][0]["p50_ns"] = 21.5;
  LopRun run = ParseLop(d);
  EXPECT_DOUBLE_EQ(run.curves[0].Value(1, Stat::kMedian), 21.5);
}

TEST(LopDataTest, SortsPointsAndDefaultsFlags) {
  LopRun run = ParseLop(Minimal());
  ASSERT_EQ(run.curves.size(), 1u);
  EXPECT_EQ(run.curves[0].points[0].p, 1);
  EXPECT_DOUBLE_EQ(run.curves[0].Value(0, Stat::kMedian), 30);
  EXPECT_FALSE(run.curves[0].list);
  EXPECT_TRUE(run.params.is_null());
}

std::string ErrorOf(const json& doc) {
  try {
    ParseLop(doc);
  } catch (const LopInputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(LopDataTest, RejectsBadDocuments) {
  EXPECT_EQ(ErrorOf(json::array()), "input is not a JSON object");
  EXPECT_EQ(ErrorOf(json::parse(R"({"tool":"verbsbench","mode":"lat"})")),
            "input is verbsbench mode 'lat' output; lopfit needs `verbsbench "
            "lop --json`");
  EXPECT_EQ(ErrorOf(json::parse(R"({"lop":{"curves":[]}})")),
            "\"lop\".\"curves\" is empty");
  EXPECT_EQ(ErrorOf(json::parse(R"({"lop":{}})")),
            "\"lop\" has no \"curves\" array");

  json d = Minimal();
  d["lop"]["curves"][0]["kind"] = "bandwidth";
  EXPECT_EQ(ErrorOf(d),
            "curve 'os': unknown \"kind\" 'bandwidth' (expected rtt, overhead "
            "or latency)");
  d = Minimal();
  d["lop"]["curves"][0]["points"][1]["p"] = 2;
  EXPECT_EQ(ErrorOf(d), "curve 'os': duplicate point p=2");
  d = Minimal();
  d["lop"]["curves"][0]["points"][0]["p"] = 0;
  EXPECT_EQ(ErrorOf(d),
            "curve 'os': every point needs a positive integer \"p\"");
  d = Minimal();
  d["lop"]["curves"][0]["points"][0]["median_ns"] = "20";
  EXPECT_EQ(ErrorOf(d), "curve 'os' p=2: \"median_ns\" must be a number");
  d = Minimal();
  d["lop"]["curves"][0]["list"] = "yes";
  EXPECT_EQ(ErrorOf(d), "curve 'os': \"list\" must be true or false");
  d = Minimal();
  d["lop"]["curves"].push_back(d["lop"]["curves"][0]);
  EXPECT_EQ(ErrorOf(d), "two curves are named 'os'");
}

TEST(LopDataTest, MissingStatisticIsReported) {
  LopRun run = ParseLop(Minimal());
  try {
    run.curves[0].Value(0, Stat::kMin);
    FAIL() << "expected LopInputError";
  } catch (const LopInputError& e) {
    EXPECT_STREQ(e.what(), "curve 'os' p=1 has no \"min_ns\"");
  }
}

TEST(LopDataTest, FileErrorsNameTheFile) {
  try {
    LoadLop("tools/fit/testdata/does_not_exist.json");
    FAIL() << "expected LopInputError";
  } catch (const LopInputError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot open 'tools/fit/testdata/does_not_exist.json'");
  }
}

// Found by lop_data_fuzz: a number beyond double range threw
// json::out_of_range past the loader (the CLI aborted).
TEST(LopDataTest, TextErrorsAreLopInputErrors) {
  for (
      const char* text :
      {R"({"lop":{"curves":[{"kind":"rtt","points":[{"p":1e+315}]}]}})",
       R"({"lop": )", "",
       R"({"lop":{"curves":[{"kind":"rtt","points":[{"p":1e300}]}]}})",
       R"({"lop":{"curves":[{"kind":"rtt","points":[{"p":1,"samples":-4}]}]}})"}) {
    try {
      ParseLopText(text, "t.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const LopInputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("'t.json'", 0), 0u) << e.what();
    }
  }
}

TEST(LopDataTest, ParseStat) {
  EXPECT_EQ(ParseStat("min"), Stat::kMin);
  EXPECT_EQ(ParseStat("median"), Stat::kMedian);
  EXPECT_EQ(ParseStat("mean"), Stat::kMean);
  EXPECT_FALSE(ParseStat("p99").has_value());
}

}  // namespace
}  // namespace verbsemu::fit
