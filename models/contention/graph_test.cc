#include "models/contention/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace verbsemu::contention {
namespace {

Graph MustParse(const std::string& text) {
  std::string why;
  auto g = ParseGraph(text, &why);
  EXPECT_TRUE(g) << text << ": " << why;
  return g.value_or(Graph{});
}

std::string Form(const Graph& g) {
  std::string why;
  auto c = Canonicalize(g, &why);
  EXPECT_TRUE(c) << why;
  return c ? c->form : "";
}

TEST(ParseGraph, ReadsEdgesAndPrintsThemBack) {
  const Graph g = MustParse(" X>P, X>Q ,c_1>Q,d.2>Q, e-3 > P");
  EXPECT_EQ(g.vertex_count(), 6);
  EXPECT_EQ(g.edge_count(), 5);
  EXPECT_EQ(g.ToString(), "X>P,X>Q,c_1>Q,d.2>Q,e-3>P");
  EXPECT_EQ(g.OutDegrees(), (std::vector<int>{2, 0, 0, 1, 1, 1}));
  EXPECT_EQ(g.InDegrees(), (std::vector<int>{0, 2, 3, 0, 0, 0}));
}

TEST(ParseGraph, KeepsParallelEdges) {
  const Graph g = MustParse("a>b,a>b");
  EXPECT_EQ(g.edge_count(), 2);
  EXPECT_EQ(g.vertex_count(), 2);
}

TEST(ParseGraph, RejectsBadTextWithAReason) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "empty graph"},
      {"   ", "empty graph"},
      {"a>b,", "is not SRC>DST"},
      {"a>b,,c>d", "is not SRC>DST"},
      {"a-b", "is not SRC>DST"},
      {"a>a", "self-loop"},
      {">b", "empty vertex label"},
      {"a>b>c", "outside"},
      {"a>b c", "outside"},
      {std::string(kMaxLabel + 1, 'x') + ">y", "longer than"},
  };
  for (const auto& [text, reason] : bad) {
    std::string why;
    EXPECT_FALSE(ParseGraph(text, &why)) << text;
    EXPECT_NE(why.find(reason), std::string::npos) << text << ": " << why;
  }
}

TEST(ParseGraph, RejectsMoreThanMaxEdges) {
  std::string text = "a>b";
  for (size_t i = 1; i <= kMaxEdges; ++i) text += ",a>b";
  std::string why;
  EXPECT_FALSE(ParseGraph(text, &why));
  EXPECT_NE(why.find("more than"), std::string::npos) << why;
}

// The least sorted edge list over every vertex relabelling: a canonical
// form by definition, slow but obviously right.
std::vector<std::pair<int, int>> BruteForm(const Graph& g) {
  std::vector<int> perm(g.vertex_count());
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<std::pair<int, int>> best;
  do {
    std::vector<std::pair<int, int>> m;
    for (const Edge& e : g.edges) m.emplace_back(perm[e.src], perm[e.dst]);
    std::sort(m.begin(), m.end());
    if (best.empty() || m < best) best = m;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

// Every loop-free edge list of 1..3 edges, vertices numbered in order of
// first appearance (which still covers every graph up to relabelling).
void AllGraphs(Graph& g, int edges_left, std::vector<Graph>& out) {
  if (!g.edges.empty()) out.push_back(g);
  if (edges_left == 0) return;
  const int v = g.vertex_count();
  for (int s = 0; s <= v; ++s)
    for (int d = 0; d <= v + (s == v); ++d) {
      if (s == d) continue;
      Graph next = g;
      while (next.vertex_count() <= std::max(s, d))
        next.labels.push_back("v" + std::to_string(next.vertex_count()));
      next.edges.push_back({s, d});
      AllGraphs(next, edges_left - 1, out);
    }
}

TEST(Canonicalize, IsomorphicEqualAndOthersDifferUpToThreeEdges) {
  std::vector<Graph> graphs;
  Graph empty;
  AllGraphs(empty, 3, graphs);
  std::map<std::string, std::set<std::vector<std::pair<int, int>>>> ours;
  std::map<std::vector<std::pair<int, int>>, std::set<std::string>> brute;
  std::array<std::set<std::string>, 4> shapes_by_edges;
  for (const Graph& g : graphs) {
    const std::string form = Form(g);
    ours[form].insert(BruteForm(g));
    brute[BruteForm(g)].insert(form);
    shapes_by_edges[g.edge_count()].insert(form);
  }
  for (const auto& [form, bs] : ours) EXPECT_EQ(bs.size(), 1u) << form;
  for (const auto& [b, forms] : brute) EXPECT_EQ(forms.size(), 1u);
  // Loop-free directed multigraphs without isolated vertices: 1, 6, 24.
  EXPECT_EQ(shapes_by_edges[1].size(), 1u);
  EXPECT_EQ(shapes_by_edges[2].size(), 6u);
  EXPECT_EQ(shapes_by_edges[3].size(), 24u);
}

TEST(Canonicalize, IgnoresLabelsEdgeOrderAndIsolatedVertices) {
  const Graph a = MustParse("X>P,X>R,X>S,Y>P,Y>Q,Z>Q");
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    Graph b = a;
    std::shuffle(b.edges.begin(), b.edges.end(), rng);
    std::vector<int> perm(b.vertex_count());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (Edge& e : b.edges) e = {perm[e.src], perm[e.dst]};
    b.labels.push_back("isolated");
    EXPECT_EQ(Form(b), Form(a)) << b.ToString();
  }
}

TEST(Canonicalize, EdgeOrderMapsEachEdgeToItsCanonicalPosition) {
  const Graph g = MustParse("d>b,a>c,a>b");
  std::string why;
  const auto c = Canonicalize(g, &why);
  ASSERT_TRUE(c) << why;
  // Senders first: a (2 out) is 0, d is 1; then c (1 in) is 2, b is 3.
  EXPECT_EQ(c->form, "0>2,0>3,1>3");
  EXPECT_EQ(c->edge_order, (std::vector<int>{1, 2, 0}));
}

TEST(Canonicalize, DistinguishesDirectionAndMultiplicity) {
  EXPECT_NE(Form(MustParse("a>b,b>c")), Form(MustParse("a>b,c>b")));
  EXPECT_NE(Form(MustParse("a>b,a>b")), Form(MustParse("a>b,a>c")));
  EXPECT_NE(Form(MustParse("a>b,b>a")), Form(MustParse("a>b,c>d")));
}

TEST(Canonicalize, RefusesATooSymmetricGraph) {
  std::string text;
  for (int i = 0; i < 11; ++i)  // 11 disjoint edges: 11! relabellings
    text +=
        (i ? "," : "") + ("s" + std::to_string(i)) + ">d" + std::to_string(i);
  std::string why;
  EXPECT_FALSE(Canonicalize(MustParse(text), &why));
  EXPECT_NE(why.find("too symmetric"), std::string::npos) << why;
}

TEST(Subgraph, KeepsVerticesAndListedEdges) {
  const Graph g = MustParse("a>b,b>c,c>a");
  const Graph s = g.Subgraph({2, 0});
  EXPECT_EQ(s.vertex_count(), 3);
  EXPECT_EQ(s.ToString(), "c>a,a>b");
}

}  // namespace
}  // namespace verbsemu::contention
