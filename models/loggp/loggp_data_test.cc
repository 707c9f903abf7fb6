#include "models/loggp/loggp_data.h"

#include <gtest/gtest.h>

#include <string>

#include "models/loggp/formulas.h"
#include "models/loggp/internal/loggp_synth.h"

namespace verbsemu::fit {
namespace {

using nlohmann::json;

synth::Truth OneSegment() {
  synth::Truth t;
  t.sizes = synth::PowersOfTwo(1, 1024);
  t.segments = {{1, 1500, 0.5}};
  return t;
}

// The one-line message of parsing `doc`, or "" if it parsed.
std::string Refusal(const json& doc, LoggpStat stat = LoggpStat::kMedian) {
  try {
    ParseLoggpText(doc.dump(), "run.json", stat);
  } catch (const LoggpInputError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  return "";
}

json& Points(json& doc) { return doc["loggp"]["points"]; }

TEST(LoggpData, ParsesARunAndDerivesItsValues) {
  const synth::Truth t = OneSegment();
  const LoggpRun run =
      ParseLoggpText(synth::Run(t).dump(), "run.json", LoggpStat::kMedian);
  EXPECT_EQ(run.n, 16);
  ASSERT_EQ(run.points.size(), t.sizes.size());
  const LoggpPoint& p = run.points[3];
  EXPECT_EQ(p.size, 8);
  EXPECT_EQ(p.op, "send");
  EXPECT_NEAR(p.gap, t.TrueGap(8), 1e-6);
  EXPECT_NEAR(p.o_s, t.os, 1e-6);
  EXPECT_NEAR(p.o_r, t.o_r, 1e-9);
  EXPECT_NEAR(p.half_rtt, t.Prtt10(8) / 2, 1e-9);
  EXPECT_TRUE(p.delay_covers_gap);
  EXPECT_FALSE(p.sender_bound);
}

TEST(LoggpData, RecomputesTheDerivedValuesRatherThanReadingThem) {
  json doc = synth::Run(OneSegment());
  Points(doc)[0]["derived"]["median_ns"]["gap_ns"] = 1e9;
  const LoggpRun run =
      ParseLoggpText(doc.dump(), "run.json", LoggpStat::kMedian);
  EXPECT_LT(run.points[0].gap, 1e4);
}

TEST(LoggpData, UsesTheChosenStatistic) {
  const json doc = synth::Run(OneSegment());
  const LoggpRun med = ParseLoggpText(doc.dump(), "r", LoggpStat::kMedian);
  const LoggpRun min = ParseLoggpText(doc.dump(), "r", LoggpStat::kMin);
  EXPECT_DOUBLE_EQ(min.points[2].prtt_1_0, 0.99 * med.points[2].prtt_1_0);
}

TEST(LoggpData, ParsesWithoutTheStatisticNotChosen) {
  json doc = synth::Run(OneSegment());
  for (json& p : Points(doc)) {
    for (const char* e : {"prtt_1_0", "prtt_n_0", "prtt_n_d", "o_r"}) {
      p[e].erase("min_ns");
    }
  }
  EXPECT_EQ(Refusal(doc), "");
  EXPECT_NE(Refusal(doc, LoggpStat::kMin).find("has no \"min_ns\""),
            std::string::npos);
}

TEST(LoggpData, RefusesWhatIsNotALoggpRun) {
  EXPECT_NE(Refusal(json{{"tool", "verbsbench"}, {"mode", "lop"}})
                .find("mode 'lop' output; loggpfit needs"),
            std::string::npos);
  EXPECT_NE(Refusal(json::array()).find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(Refusal(json{{"x", 1}}).find("no \"loggp\" section"),
            std::string::npos);
  try {
    ParseLoggpText("{\"loggp\":", "cut.json", LoggpStat::kMin);
    ADD_FAILURE() << "parsed a cut document";
  } catch (const LoggpInputError& e) {
    EXPECT_NE(std::string(e.what()).find("'cut.json' is not valid JSON"),
              std::string::npos);
  }
}

TEST(LoggpData, RefusesBadRuns) {
  const json good = synth::Run(OneSegment());
  json doc = good;
  doc["loggp"]["n"] = 1;
  EXPECT_NE(Refusal(doc).find("\"n\" must be a whole number >= 2"),
            std::string::npos);
  doc = good;
  Points(doc)[2].erase("prtt_n_d");
  EXPECT_NE(Refusal(doc).find("size 4 has no measured \"prtt_n_d\""),
            std::string::npos);
  doc = good;
  Points(doc)[3]["size"] = 4;
  EXPECT_NE(Refusal(doc).find("sizes are not increasing: 4 after 4"),
            std::string::npos);
  doc = good;
  Points(doc)[1]["o_r"]["median_ns"] = "fast";
  EXPECT_NE(Refusal(doc).find("must be a number"), std::string::npos);
  doc = good;
  Points(doc) = json::array();
  EXPECT_NE(Refusal(doc).find("has no points"), std::string::npos);
  doc = good;
  Points(doc) = json::array();
  for (int i = 0; i < 1001; ++i)
    Points(doc).push_back(good["loggp"]["points"][0]);
  EXPECT_NE(Refusal(doc).find("more than 1000 points"), std::string::npos);
  doc = good;
  Points(doc)[0]["size"] = -1;
  EXPECT_NE(Refusal(doc).find("\"size\" must be a whole number"),
            std::string::npos);
}

TEST(LoggpData, RefusesNonFiniteValues) {
  // JSON has no infinity; a number beyond a double's range is one.
  std::string text = synth::Run(OneSegment()).dump();
  const std::string key = "\"delay_ns\":";
  const std::size_t from = text.find(key) + key.size();
  text.replace(from, text.find_first_of(",}", from) - from, "1e999");
  ASSERT_NE(text.find("1e999"), std::string::npos);
  EXPECT_THROW(ParseLoggpText(text, "big.json", LoggpStat::kMedian),
               LoggpInputError);
  json doc = synth::Run(OneSegment());
  Points(doc)[0]["prtt_n_0"]["median_ns"] = 1.7e308;
  Points(doc)[0]["prtt_1_0"]["median_ns"] = -1.7e308;
  EXPECT_NE(Refusal(doc).find("too large"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::fit
