#include "verbsbench/contend/graph_set.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

std::string Form(const Graph& g) {
  std::string why;
  return mc::Canonicalize(g, &why).value().form;
}

// Shapes up to 3 edges: 1 + 6 + 24, as docs/contention.md counts them by
// the canonical form; each a distinct form, no isolated vertex.
TEST(Shapes, CountsPerEdgeCountMatchTheCanonicalForm) {
  const std::vector<Graph> shapes = Shapes(3);
  int per_edges[4] = {0, 0, 0, 0};
  std::set<std::string> forms;
  for (const Graph& g : shapes) {
    ++per_edges[g.edge_count()];
    EXPECT_TRUE(forms.insert(Form(g)).second) << g.ToString();
    const auto out = g.OutDegrees(), in = g.InDegrees();
    for (int v = 0; v < g.vertex_count(); ++v)
      EXPECT_GT(out[v] + in[v], 0) << g.ToString();
  }
  EXPECT_EQ(per_edges[1], 1);
  EXPECT_EQ(per_edges[2], 6);
  EXPECT_EQ(per_edges[3], 24);
  EXPECT_EQ(Shapes(1).size(), 1u);
  EXPECT_EQ(Shapes(2).size(), 7u);
  // Parallel edges and a duplex pair are shapes of their own.
  EXPECT_TRUE(forms.contains("0>1,0>1"));
  EXPECT_TRUE(forms.contains("0>1,1>0"));
  EXPECT_TRUE(forms.contains("0>1,0>1,0>1"));
}

TEST(ParsePlannedGraph, NameSizesAndStarts) {
  SetOptions o;
  o.bytes = 4096;
  const PlannedGraph p = ParsePlannedGraph("fan: a>b:1MiB@2ms, a>c", o);
  EXPECT_EQ(p.name, "fan");
  EXPECT_EQ(p.graph.ToString(), "a>b,a>c");
  ASSERT_EQ(p.edges.size(), 2u);
  EXPECT_EQ(p.edges[0].bytes, 1 << 20);
  EXPECT_EQ(p.edges[0].start_offset_ns, 2000000);
  EXPECT_EQ(p.edges[1].bytes, 4096);
  EXPECT_EQ(p.edges[1].start_offset_ns, 0);
  EXPECT_FALSE(p.StaticSynchronous());
  const PlannedGraph q = ParsePlannedGraph("a>b,b>a", o);
  EXPECT_EQ(q.name, "a>b,b>a");
  EXPECT_TRUE(q.StaticSynchronous());
}

TEST(ParsePlannedGraph, BadInputIsOneLine) {
  const SetOptions o;
  for (const char* bad :
       {"a>a", "a>b:12Q", "a>b@soon", "a>b,", "", "a-b", "a>b:0", "a>b:2G"}) {
    try {
      ParsePlannedGraph(bad, o);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(ExpandGraphs, AGivenGraphNeedingMoreVerticesThanRanksIsRefused) {
  SetOptions o;
  o.ranks = 2;
  int left = 0;
  EXPECT_EQ(ExpandGraphs("a>b,b>a", o, &left).size(), 1u);
  try {
    ExpandGraphs("a>b,c>d", o, &left);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "graph 'a>b,c>d' needs 4 vertices, the run has 2 ranks");
  }
}

TEST(ExpandGraphs, SetsLeaveOutWhatDoesNotFit) {
  SetOptions o;
  o.ranks = 2;
  int left = 0;
  const auto calibrate = ExpandGraphs("calibrate", o, &left);
  ASSERT_EQ(calibrate.size(), 2u);
  EXPECT_EQ(calibrate[0].graph.ToString(), "a>b");
  EXPECT_EQ(calibrate[1].graph.ToString(), "a>b,b>a");
  EXPECT_EQ(left, 2);
  o.ranks = 4;
  left = 0;
  EXPECT_EQ(ExpandGraphs("calibrate", o, &left).size(), 4u);
  const auto paper = ExpandGraphs("mm2011", o, &left);
  ASSERT_EQ(paper.size(), 2u);  // Fig. 2's graphs 1 and 3
  EXPECT_EQ(paper[0].name, "fig2.1");
  EXPECT_EQ(paper[1].name, "fig2.3");
  EXPECT_EQ(left, 5);
  o.ranks = 7;
  left = 0;
  EXPECT_EQ(ExpandGraphs("mm2011", o, &left).size(), 7u);
  EXPECT_EQ(ExpandGraphs("shapes:3", o, &left).size(), 31u);
  EXPECT_EQ(left, 0);
  o.ranks = 3;  // shapes of up to 3 vertices: 1 + 5 + 10
  EXPECT_EQ(ExpandGraphs("shapes:3", o, &left).size(), 16u);
  EXPECT_EQ(left, 15);
  for (const char* bad : {"shapes:4", "shapes:0", "shapes:x", "random:3",
                          "random:0:1-2", "random:2:3-1", "random:2:1-99"})
    EXPECT_THROW(ExpandGraphs(bad, o, &left), std::invalid_argument) << bad;
}

TEST(ExpandGraphs, RandomGraphsFollowTheSeedAndTheBounds) {
  SetOptions o;
  o.ranks = 4;
  o.max_degree = 2;
  o.seed = 42;
  int left = 0;
  const auto a = ExpandGraphs("random:5:2-4", o, &left);
  const auto b = ExpandGraphs("random:5:2-4", o, &left);
  o.seed = 43;
  const auto c = ExpandGraphs("random:5:2-4", o, &left);
  ASSERT_EQ(a.size(), 15u);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].graph.ToString(), b[i].graph.ToString());
    differs = differs || a[i].graph.ToString() != c[i].graph.ToString();
    EXPECT_EQ(a[i].graph.edge_count(), 2 + static_cast<int>(i) / 5);
    EXPECT_LE(a[i].graph.vertex_count(), 4);
    for (int d : a[i].graph.OutDegrees()) EXPECT_LE(d, 2);
    for (int d : a[i].graph.InDegrees()) EXPECT_LE(d, 2);
  }
  EXPECT_TRUE(differs);
}

// mm2011-node ends d>b first (1.5) in a>b,a>c,d>b; a>b and a>c run on: the
// closure adds that fan-out unless the set has its shape.
TEST(WithClosure, AddsTheResidualGraphsNotInTheSet) {
  SetOptions o;
  o.bytes = 1 << 20;
  const auto out = WithClosure({ParsePlannedGraph("a>b,a>c,d>b", o)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].graph.ToString(), "a>b,a>c");
  EXPECT_EQ(out[1].edges[0].bytes, 1 << 20);
  const auto has = WithClosure(
      {ParsePlannedGraph("a>b,a>c,d>b", o), ParsePlannedGraph("x>y,x>z", o)});
  EXPECT_EQ(has.size(), 2u);
  // Not static-synchronous: no closure.
  EXPECT_EQ(WithClosure({ParsePlannedGraph("a>b@1ms,a>c,d>b", o)}).size(), 1u);
}

}  // namespace
}  // namespace verbsbench::contend
