#include "verbsbench/contend/checks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "verbsbench/contend/summary.h"

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

bool Has(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

// 1 MiB edges, T_ref 10 ms: `alone` (a>b) over `alone_ms`, the duplex
// and the independent pairs at `duplex_ms` and `pairs_ms` per edge, every
// sender starting `late_ns` after the common start.
ContendData Calibration(std::vector<double> alone_ms, double duplex_ms,
                        double pairs_ms, std::int64_t late_ns = 1000) {
  SetOptions o;
  o.bytes = 1 << 20;
  ContendData d;
  d.ranks = {{0, "h", "d0", 1},
             {1, "h", "d1", 1},
             {2, "h", "d2", 1},
             {3, "h", "d3", 1}};
  d.graphs.push_back(Measured(ParsePlannedGraph("alone: a>b", o)));
  d.graphs.push_back(Measured(ParsePlannedGraph("duplex: a>b,b>a", o)));
  d.graphs.push_back(Measured(ParsePlannedGraph("pairs: a>b,c>d", o)));
  auto edge = [&](double ms) {
    const auto end = static_cast<std::int64_t>(ms * 1e6);
    return mc::EdgeTiming{late_ns, end - 1000, late_ns + 500, end};
  };
  int rep = 0;
  for (double ms : alone_ms) {
    d.graphs[0].runs.push_back({rep, rep, {edge(ms)}});
    d.graphs[1].runs.push_back({rep, rep, {edge(duplex_ms), edge(duplex_ms)}});
    d.graphs[2].runs.push_back({rep, rep, {edge(pairs_ms), edge(pairs_ms)}});
    ++rep;
  }
  return d;
}

TEST(Check, AQuietFullDuplexNonBlockingFabricPasses) {
  EXPECT_TRUE(Check(Calibration({10, 10.1, 9.9, 10}, 10.2, 9.8)).empty());
}

TEST(Check, ASpreadOneEdgeGraphIsNamed) {
  const auto w = Check(Calibration({9, 10, 11, 10}, 10, 10));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(Has(w, "alone: T varies by 8.2% ")) << w[0];
}

TEST(Check, AHalfDuplexOrBlockingFabricIsNamedWithItsRanks) {
  const auto w = Check(Calibration({10, 10, 10}, 20, 10.5));
  EXPECT_TRUE(Has(w, "duplex: a>b took 2.000 of T_ref")) << w.size();
  EXPECT_TRUE(Has(w, "not full duplex between ranks 1 and 0"));
  EXPECT_TRUE(Has(w, "pairs: c>d took 1.050 of T_ref"));
  EXPECT_TRUE(Has(w, "not non-blocking between ranks 2 and 3"));
  EXPECT_EQ(w.size(), 4u);  // both edges of each
}

TEST(Check, APairJudgedAgainstASpreadTRefSaysSo) {
  const auto w = Check(Calibration({8, 10, 12}, 11, 10));
  ASSERT_EQ(w.size(), 3u);  // the spread, and the duplex's 2 edges at 1.1
  EXPECT_TRUE(Has(w, "(or T_ref is off: see its spread above)"));
}

TEST(Check, LateStartsAreCountedPerGraph) {
  // 0.5% of T_ref (10 ms) is 50 us: 60 us late is flagged, 40 us is not.
  EXPECT_TRUE(Check(Calibration({10, 10}, 10, 10, 40000)).empty());
  const auto w = Check(Calibration({10, 10}, 10, 10, 60000));
  ASSERT_EQ(w.size(), 3u);
  EXPECT_TRUE(Has(w, "duplex: 4 of 4 edge starts came after")) << w[1];
  EXPECT_TRUE(Has(w, "(the latest 60.0 us)"));
}

TEST(Check, WithoutAOneEdgeGraphOnlyTheSpreadIsChecked) {
  ContendData d = Calibration({10, 10}, 20, 20, 5000000);
  d.graphs.erase(d.graphs.begin());
  EXPECT_TRUE(Check(d).empty());
}

}  // namespace
}  // namespace verbsbench::contend
