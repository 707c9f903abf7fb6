// Compare on synthetic measurements (synth.h): the same graphs at a port
// rate and at half of it, noise-free, give every edge a ratio of exactly 2.
#include "models/contention/compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/contention/fit.h"
#include "models/contention/models.h"
#include "models/contention/synth.h"

namespace verbsemu::contention {
namespace {

ContendData Data(double rate, std::vector<std::string> graphs = {}) {
  SynthOptions o;
  o.graphs = std::move(graphs);
  o.model = FindModel("mm2011-node");
  o.port_rate_Bps = rate;
  o.noise = 0;
  o.reps = 3;
  return Synthesize(o);
}

TEST(Compare, HalvingThePortRateDoublesEveryEdge) {
  const ContendData base = Data(262144), half = Data(131072);
  const Comparison c = Compare(base, half);
  int edges = 0;
  for (const MeasuredGraph& g : base.graphs) edges += g.graph.edge_count();
  ASSERT_EQ(static_cast<int>(c.edges.size()), edges);
  EXPECT_EQ(c.only_base, 0);
  EXPECT_EQ(c.only_other, 0);
  for (const EdgeRatio& r : c.edges) {
    EXPECT_EQ(r.base_graph, r.other_graph);
    EXPECT_NEAR(r.ratio, 2, 1e-9);
    EXPECT_NEAR(r.base_s, MeasuredSeconds(base.graphs[r.base_graph], 0, r.edge),
                1e-9);
  }
  EXPECT_NEAR(c.median, 2, 1e-9);
  EXPECT_NEAR(c.min, 2, 1e-9);
  EXPECT_NEAR(c.max, 2, 1e-9);
  EXPECT_TRUE(Outside(c, 2, 0.04).empty());
  EXPECT_EQ(Outside(c, 1, 0.04).size(), c.edges.size());
}

// One edge 10% late in two of its three runs moves its median: it alone
// is outside 2 ± 0.04, and first among the edges outside a tighter band.
TEST(Compare, AnEdgeOutsideTheBandIsNamed) {
  const ContendData base = Data(262144);
  ContendData half = Data(131072);
  MeasuredGraph& g = half.graphs.back();
  for (int r = 0; r < 2; ++r) {
    EdgeTiming& t = g.runs[r].edges[0];
    t.recv_end_ns += (t.recv_end_ns - g.edges[0].start_offset_ns) / 10;
  }
  const Comparison c = Compare(base, half);
  const std::vector<EdgeRatio> out = Outside(c, 2, 0.04);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].other_graph, static_cast<int>(half.graphs.size()) - 1);
  EXPECT_EQ(out[0].edge, 0);
  EXPECT_NEAR(out[0].ratio, 2.2, 1e-6);
  EXPECT_NEAR(c.max, 2.2, 1e-6);
}

// A graph measured in one file only is counted, not matched; a graph
// measured twice is matched first to first, second to second.
TEST(Compare, GraphsAreMatchedByNamePlanAndOrder) {
  const ContendData base = Data(262144, {"a>b", "a>b,a>c"});
  ContendData other = Data(262144, {"a>b", "a>b,b>c"});
  EXPECT_EQ(Compare(base, other).only_base, 1);
  EXPECT_EQ(Compare(base, other).only_other, 1);
  EXPECT_EQ(Compare(base, other).edges.size(), 1u);

  ContendData twice = base, twice_other = base;
  twice.graphs.push_back(base.graphs[0]);
  twice_other.graphs.push_back(base.graphs[0]);
  for (GraphRun& run : twice.graphs.back().runs) run.edges[0].recv_end_ns *= 2;
  for (GraphRun& run : twice_other.graphs.back().runs)
    run.edges[0].recv_end_ns *= 2;
  const Comparison c = Compare(twice, twice_other);
  ASSERT_EQ(c.edges.size(), 4u);
  for (const EdgeRatio& r : c.edges) {
    EXPECT_EQ(r.base_graph, r.other_graph);
    EXPECT_NEAR(r.ratio, 1, 1e-9);
  }
}

TEST(Compare, NothingInCommonGivesNoRatio) {
  const Comparison c = Compare(Data(262144, {"a>b"}), Data(262144, {"a>c"}));
  EXPECT_TRUE(c.edges.empty());
  EXPECT_EQ(c.median, 0);
  EXPECT_TRUE(Outside(c, 2, 0.04).empty());
}

}  // namespace
}  // namespace verbsemu::contention
