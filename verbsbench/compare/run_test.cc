#include "verbsbench/compare/run.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "verbsbench/compare/test_runs.h"

namespace verbsbench::compare {
namespace {

using nlohmann::json;
using test_runs::LogNormal;
using test_runs::LopRunJson;
using test_runs::RunJson;

// The message ParseRun throws on `doc`, or "" when it parses.
std::string ErrorOf(const json& doc) {
  try {
    ParseRun(doc, "r.json");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.what();
  }
  return "";
}

json LatRun(bool keep_raw = false) {
  return RunJson(Mode::kLat,
                 {{Op::kSend, 8, false, LogNormal(10000, 300, 1)},
                  {Op::kWrite, 64, true, LogNormal(9000, 200, 2)}},
                 keep_raw);
}

TEST(ParseRun, ReadsALatRunsPoints) {
  const compare::Run run = ParseRun(LatRun(), "a.json");
  EXPECT_EQ(run.label, "a.json");
  EXPECT_EQ(run.mode, "lat");
  ASSERT_EQ(run.points.size(), 2u);
  const Point& p = run.points[1];
  EXPECT_EQ(run.points[0].id, "lat send size 8");
  EXPECT_EQ(p.id, "lat write inline size 64");
  EXPECT_EQ(p.count, 200u);
  EXPECT_EQ(p.observations, 200u);
  for (const char* q : {"min", "p50", "p90", "p99", "p999", "max", "mean"}) {
    EXPECT_TRUE(p.stats.contains(q)) << q;
  }
  double total = 0;
  for (const Bin& b : p.bins) total += b.count;
  EXPECT_EQ(total, 200);
  EXPECT_TRUE(p.raw.empty());
  EXPECT_EQ(ParseRun(LatRun(true), "a.json").points[1].raw.size(), 200u);
}

TEST(ParseRun, BwPointsNameTheirDirectionAndCountObservations) {
  json doc = RunJson(Mode::kBw,
                     {{Op::kWrite, 4096, false, LogNormal(800, 50, 3)}}, false);
  doc["results"][0]["bidirectional"] = true;
  doc["results"][0]["stats"]["observations"] = 4;
  const compare::Run run = ParseRun(doc, "bw.json");
  EXPECT_EQ(run.points[0].id, "bw write size 4096 bidirectional");
  EXPECT_EQ(run.points[0].observations, 4u);
}

TEST(ParseRun, LopPointsAreCurveAndP) {
  const compare::Run run = ParseRun(
      LopRunJson({LogNormal(20000, 100, 4), LogNormal(40000, 100, 5)}, false),
      "lop.json");
  ASSERT_EQ(run.points.size(), 2u);
  EXPECT_EQ(run.points[1].id, "lop rtt2_1n_send_inline p=2");
}

TEST(ParseRun, OlderFilesCountSamples) {
  json doc = LatRun();
  json& stats = doc["results"][0]["stats"];
  stats["samples"] = stats["count"];
  stats.erase("count");
  EXPECT_EQ(ParseRun(doc, "old.json").points[0].count, 300u);
}

TEST(ParseRun, RefusesWhatIsNotARootsResultInOneLine) {
  EXPECT_EQ(ErrorOf(json::array()),
            "r.json: not a verbsbench result (not an object)");
  EXPECT_EQ(ErrorOf({{"tool", "verbsbench"}}),
            "r.json: not a verbsbench result (no 'mode')");
  EXPECT_EQ(ErrorOf({{"tool", "perftest"}, {"mode", "lat"}}),
            "r.json: not a verbsbench result (tool \"perftest\")");
  EXPECT_EQ(ErrorOf({{"mode", "lat"}, {"role", "peer"}}),
            "r.json: a peer's report, without results (compare the root's)");
  EXPECT_EQ(ErrorOf({{"mode", "ping"}}),
            "r.json: unknown mode 'ping' (lat, bw or lop)");
  EXPECT_EQ(ErrorOf({{"mode", "lat"}}), "r.json: no 'results'");
  EXPECT_EQ(ErrorOf({{"mode", "lat"}, {"results", json::array()}}),
            "r.json: no measured points");
  EXPECT_EQ(ErrorOf({{"mode", "lop"}, {"lop", {{"curves", 3}}}}),
            "r.json: lop/curves: not an array");
}

TEST(ParseRun, RefusesMalformedPointsNamingWhere) {
  json doc = LatRun();
  doc["results"][1].erase("stats");
  EXPECT_EQ(ErrorOf(doc), "r.json: results/1: no 'stats'");
  doc = LatRun();
  doc["results"][0]["stats"]["histogram"][1]["lo_ns"] = "x";
  EXPECT_EQ(ErrorOf(doc),
            "r.json: results/0/stats/histogram/1/lo_ns: not a number");
  doc = LatRun();
  doc["results"][0]["stats"]["histogram"][0]["hi_ns"] = 1e9;
  EXPECT_EQ(ErrorOf(doc),
            "r.json: results/0/stats/histogram: bins out of order or "
            "overlapping");
  doc = LatRun();
  doc["results"][1] = doc["results"][0];
  EXPECT_EQ(ErrorOf(doc), "r.json: two points are 'lat send size 8'");
  doc = LatRun(true);
  doc["results"][0]["raw_ns"][3] = nullptr;
  EXPECT_EQ(ErrorOf(doc), "r.json: results/0/raw_ns/3: not a finite number");
  doc = LatRun(true);
  doc["results"][0]["raw_ns"][2] = -7e300;
  EXPECT_EQ(ErrorOf(doc), "r.json: results/0/raw_ns/2: a negative duration");
  doc = LatRun();
  doc["results"][0]["size"] = -8;
  EXPECT_EQ(ErrorOf(doc), "r.json: results/0/size: not a whole number");
}

TEST(ReadRun, NamesTheFileItCannotUse) {
  const std::string dir = ::testing::TempDir();
  try {
    ReadRun(dir + "/missing.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir + "/missing.json: cannot read (No such file or directory)");
  }
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << "{\"mode\": \n";
  try {
    ReadRun(bad);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(bad + ": not JSON (parse error", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  EXPECT_THROW(ReadRun(dir), InputError);
  const std::string good = dir + "/good.json";
  std::ofstream(good) << LatRun().dump();
  EXPECT_EQ(ReadRun(good).points.size(), 2u);
}

}  // namespace
}  // namespace verbsbench::compare
