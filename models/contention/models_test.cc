// The penalty models on the paper's graphs (Martinasso & Mehaut, Euro-Par
// 2011) and on the reference simulations in the project's notes
// (contention-sims/mm.py, sim.py; sim.out).
#include "models/contention/models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "models/contention/paper_graphs.h"
#include "models/contention/rules.h"
#include "models/contention/sharing.h"

namespace verbsemu::contention {
namespace {

using paper::Parse;
using V = std::vector<double>;

void ExpectNear(const V& got, const V& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol) << what << " edge " << i;
}

V Node(const char* g) { return Mm2011Penalties(Parse(g), RuleB::kNode); }
V EdgeB(const char* g) { return Mm2011Penalties(Parse(g), RuleB::kEdge); }

// Fig. 2, examples 1-4 (rules only), node reading of rule (b).
TEST(Mm2011, Fig2NodeReading) {
  ExpectNear(Node(paper::kFig2Graph1), {3, 3, 3}, 1e-12, "Fig. 2 graph 1");
  ExpectNear(Node(paper::kFig2Graph2), {2, 2, 2, 2}, 1e-12, "Fig. 2 graph 2");
  ExpectNear(Node(paper::kFig2Graph3), {4, 4, 4, 8.0 / 3, 8.0 / 3}, 1e-12,
             "Fig. 2 graph 3");
  ExpectNear(Node(paper::kFig2Graph4), {4, 4, 4.0 / 3, 4.0 / 3}, 1e-12,
             "Fig. 2 graph 4");
}

// Fig. 2 example 4 under the edge reading: (b) sees delta+(a) + 1 = 3.
TEST(Mm2011, Fig2Graph4EdgeReadingGivesOneAndAHalf) {
  ExpectNear(EdgeB(paper::kFig2Graph4), {4, 4, 1.5, 1.5}, 1e-12,
             "Fig. 2 graph 4, edge");
}

// Fig. 3's first step: a, b, c 3.5; d, e 10/3; f 1.5 (edge reading; the
// node reading gives f 1 + 1/(10/3 - 1) = 10/7).
TEST(Mm2011, Fig3FirstStep) {
  ExpectNear(EdgeB(paper::kFig3), {3.5, 3.5, 3.5, 10.0 / 3, 10.0 / 3, 1.5},
             1e-12, "Fig. 3, edge");
  ExpectNear(Node(paper::kFig3), {3.5, 3.5, 3.5, 10.0 / 3, 10.0 / 3, 10.0 / 7},
             1e-12, "Fig. 3, node");
}

// Fig. 4's first steps: A 5, 5, 2.5, 2.5 and e 1.25 (node; the figure
// prints 1.5, the edge reading) ; B 5, 5, 3.5, 3.5, 3.5 (both).
TEST(Mm2011, Fig4FirstStep) {
  ExpectNear(Node(paper::kFig4A), {5, 5, 2.5, 2.5, 1.25}, 1e-12, "Fig. 4 A");
  ExpectNear(EdgeB(paper::kFig4A), {5, 5, 2.5, 2.5, 1.5}, 1e-12, "Fig. 4 A e");
  ExpectNear(Node(paper::kFig4B), {5, 5, 3.5, 3.5, 3.5}, 1e-12, "Fig. 4 B");
  ExpectNear(EdgeB(paper::kFig4B), {5, 5, 3.5, 3.5, 3.5}, 1e-12, "Fig. 4 B");
}

TEST(Mm2011, IncastOfSingleOutSendersIsN) {
  for (int n = 2; n <= 6; ++n) {
    std::string g;
    for (int i = 0; i < n; ++i)
      g += (i ? ",s" : "s") + std::to_string(i) + ">D";
    for (RuleB b : {RuleB::kNode, RuleB::kEdge})
      ExpectNear(Mm2011Penalties(Parse(g), b), V(n, n), 1e-12, g);
  }
}

// sim.out, "maxmin" rows: progressive filling over egress and ingress.
TEST(MaxMin, MatchesReferenceSimulation) {
  const auto mm = [](const char* g) { return MaxMinPenalties(Parse(g)); };
  ExpectNear(mm(paper::kFig2Graph3), {3, 3, 3, 2, 2}, 1e-12, "g3");
  ExpectNear(mm(paper::kFig2Graph4), {2, 2, 2, 2}, 1e-12, "g4");
  ExpectNear(mm(paper::kFig3), {3, 3, 3, 2, 2, 2}, 1e-12, "fig3");
  ExpectNear(mm(paper::kFig4A), {2, 3, 3, 3, 2}, 1e-12, "A");
  ExpectNear(mm(paper::kFig4B), {4, 4.0 / 3, 4, 4, 4}, 1e-12, "B");
}

// sim.py's hol_rr (the same chunk simulation, horizon 20000) to its last
// digits; sim.out prints them rounded: g3 3.50/2.33, g4 3.00/1.50, A
// 4/4/2.67/2.67/1.33, B 5/5/3.75.
TEST(IbHol, MatchesReferenceSimulation) {
  const auto hol = [](const char* g) { return IbHolPenalties(Parse(g)); };
  const double tol = 1e-9;
  ExpectNear(hol(paper::kFig2Graph3),
             {3.499562554680665, 3.5001750087504373, 3.5001750087504373,
              2.333450005833625, 2.333450005833625},
             tol, "g3");
  ExpectNear(hol(paper::kFig2Graph4),
             {2.999850007499625, 2.999850007499625, 1.5000375009375235,
              1.5000375009375235},
             tol, "g4");
  ExpectNear(hol(paper::kFig3),
             {2.999850007499625, 3.0003000300030003, 3.0003000300030003,
              2.999850007499625, 3.0003000300030003, 1.4999250037498124},
             tol, "fig3");
  ExpectNear(hol(paper::kFig4A),
             {3.9992001599680065, 4.0, 2.6666666666666665, 2.6666666666666665,
              1.3334222281485433},
             tol, "A");
  ExpectNear(
      hol(paper::kFig4B),
      {5.0, 5.0, 3.749531308586427, 3.750234389649353, 3.750234389649353}, tol,
      "B");
}

TEST(Models, TableHasEveryModelOnceAndFindsByName) {
  EXPECT_EQ(ModelNames(), "mm2011-node, mm2011-edge, maxmin, ib-hol");
  for (const Model& m : Models()) {
    EXPECT_EQ(FindModel(m.name), &m);
    EXPECT_FALSE(m.description.empty());
  }
  EXPECT_EQ(FindModel("mm2011"), nullptr);
}

// Every model: a lone transfer has rho 1, independent and full-duplex
// pairs too, and no penalty is below 1 on the paper's graphs.
TEST(Models, LoneAndIndependentTransfersHavePenaltyOne) {
  for (const Model& m : Models())
    for (const char* g : {"a>b", "a>b,c>d", "a>b,b>a", "a>b,b>c"})
      ExpectNear(m.penalties(Parse(g)), V(Parse(g).edge_count(), 1.0), 1e-12,
                 std::string(m.name) + " " + g);
}

TEST(Models, PenaltiesAtLeastOneOnPaperGraphs) {
  for (const Model& m : Models())
    for (const char* g : {paper::kFig2Graph1, paper::kFig2Graph2,
                          paper::kFig2Graph3, paper::kFig2Graph4, paper::kFig3,
                          paper::kFig4A, paper::kFig4B, "a>b,a>b,c>b"})
      for (double r : m.penalties(Parse(g))) EXPECT_GE(r, 1.0) << m.name << g;
}

// Relabelling vertices and reordering edges moves the penalties with the
// edges.
TEST(Models, PenaltiesFollowRelabelling) {
  std::mt19937 rng(3);
  for (const Model& m : Models()) {
    const Graph g = Parse(paper::kFig3);
    const V want = m.penalties(g);
    for (int round = 0; round < 5; ++round) {
      std::vector<int> order(g.edge_count());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      Graph h = g.Subgraph(order);
      std::vector<int> perm(h.vertex_count());
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (Edge& e : h.edges) e = {perm[e.src], perm[e.dst]};
      const V got = m.penalties(h);
      for (size_t k = 0; k < order.size(); ++k)
        EXPECT_NEAR(got[k], want[order[k]], 1e-3)
            << m.name;  // ib-hol: 1e-4 noise
    }
  }
}

}  // namespace
}  // namespace verbsemu::contention
