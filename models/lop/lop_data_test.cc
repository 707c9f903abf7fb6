#include "models/lop/lop_data.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace verbsemu::fit {
namespace {

using nlohmann::json;

// A real run: tools/internal/lop_rxe.sh, mpirun -np 9 in the test bed's
// pair topology, the root on rxe0 and 8 peers on rxe1 (docs/fitting.md).
constexpr char kSample[] = "models/lop/testdata/lop_rxe8.json";

const LopCurve& Named(const LopRun& run, const std::string& name) {
  for (const LopCurve& c : run.curves) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no curve " + name);
}

TEST(LopDataTest, ParsesARealRun) {
  LopRun run = LoadLop(kSample);
  EXPECT_EQ(run.params["peers"], 8);
  EXPECT_EQ(run.device["name"], "rxe0");

  const LopCurve& round = Named(run, "round_1n_send_inline");
  EXPECT_EQ(round.kind, CurveKind::kRound);
  EXPECT_EQ(round.pattern, "1:n");
  EXPECT_EQ(round.op, "send");
  ASSERT_TRUE(round.is_inline.has_value());
  EXPECT_TRUE(*round.is_inline);
  EXPECT_FALSE(round.list);
  ASSERT_EQ(round.points.size(), 8u);
  EXPECT_EQ(round.points[0].p, 1);
  EXPECT_EQ(round.points[7].p, 8);
  EXPECT_EQ(round.points[0].samples, 300);
  for (Stat s : {Stat::kMin, Stat::kMedian, Stat::kMean}) {
    EXPECT_GT(round.Value(3, s), 0);
  }
  EXPECT_LE(round.Value(3, Stat::kMin), round.Value(3, Stat::kMedian));

  // t_rtt is the round per peer, as verbsbench derived it.
  const LopCurve& rtt = Named(run, "rtt_1n_send_inline");
  EXPECT_EQ(rtt.kind, CurveKind::kRtt);
  EXPECT_DOUBLE_EQ(rtt.Value(3, Stat::kMedian),
                   round.Value(3, Stat::kMedian) / 4);

  const LopCurve& list = Named(run, "round_1n_send_inline_list");
  EXPECT_TRUE(list.list);
  const LopCurve& os_list = Named(run, "os_send_list");
  EXPECT_EQ(os_list.kind, CurveKind::kOverhead);
  EXPECT_EQ(os_list.side, "send");
  EXPECT_TRUE(os_list.list);
  const LopCurve& llist = Named(run, "Llist_1n_send_inline");
  EXPECT_EQ(llist.kind, CurveKind::kLatency);
  EXPECT_FALSE(llist.points[0].p99_ns.has_value());  // derived: no p99
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
            "curve 'os': unknown \"kind\" 'bandwidth' (expected round, rtt, "
            "overhead or latency)");
  // Before t_rtt per peer, "rtt" curves named rtt2_* held whole rounds.
  d = Minimal();
  d["lop"]["curves"][0]["kind"] = "rtt";
  d["lop"]["curves"][0]["name"] = "rtt2_1n_send_inline";
  EXPECT_EQ(ErrorOf(d),
            "curve 'rtt2_1n_send_inline' holds whole rounds (a verbsbench "
            "from before t_rtt per peer): rerun verbsbench lop");
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
    LoadLop("models/lop/testdata/does_not_exist.json");
    FAIL() << "expected LopInputError";
  } catch (const LopInputError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot open 'models/lop/testdata/does_not_exist.json'");
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
