// The forward solver on the paper's Figs. 3 and 4 (Martinasso & Mehaut,
// Euro-Par 2011; expected values from contention-sims/mm.py, mm.out and
// table.out) and its invariants.
#include "models/contention/solver.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/contention/models.h"
#include "models/contention/paper_graphs.h"
#include "models/contention/rules.h"

namespace verbsemu::contention {
namespace {

using paper::kAlpha;
using paper::kBytes;
using paper::kTref;
using paper::Parse;

Penalties Rules(RuleB b) {
  return [b](const Graph& g) { return Mm2011Penalties(g, b); };
}

Solution Synchronous(const char* g, const Penalties& p) {
  return SolveSynchronous(Parse(g), kBytes, kAlpha, p);
}

void ExpectRel(double got, double want, double rel, const std::string& what) {
  EXPECT_NEAR(got / want, 1.0, rel) << what << ": " << got << " vs " << want;
}

// Fig. 3 as printed: step ends 0.0160590, 0.0297984, 0.0363749 s; bytes
// left 11,983,700 (a, b, c) and 11,534,300 (d, e) after step 1, 4,294,170
// after step 2; penalties 3.5/3.33/1.5, 3.5/2.33, 3. Edge reading.
TEST(SolveFig3, EdgeReadingReproducesThePrintedTable) {
  const Solution s = Synchronous(paper::kFig3, Rules(RuleB::kEdge));
  ASSERT_EQ(s.steps.size(), 3u);
  ExpectRel(s.steps[0].end_s, 0.0160589, 1e-5, "step 1 end");
  ExpectRel(s.steps[1].end_s, 0.0297983, 1e-5, "step 2 end");
  ExpectRel(s.steps[2].end_s, 0.0363748, 1e-5, "step 3 end");
  const auto& st1 = s.steps[0].active;
  ASSERT_EQ(st1.size(), 6u);
  for (int i : {0, 1, 2}) {
    EXPECT_DOUBLE_EQ(st1[i].rho, 3.5);
    EXPECT_NEAR(st1[i].remaining, 11983726, 100);
    EXPECT_NEAR(s.steps[1].active[i].remaining, 4294168, 100);
    EXPECT_DOUBLE_EQ(s.steps[1].active[i].rho, 3.5);
    EXPECT_DOUBLE_EQ(s.steps[2].active[i].rho, 3.0);
  }
  for (int i : {3, 4}) {
    EXPECT_NEAR(st1[i].rho, 10.0 / 3, 1e-12);
    EXPECT_NEAR(st1[i].remaining, 11534336, 100);
    EXPECT_NEAR(s.steps[1].active[i].rho, 7.0 / 3, 1e-12);
  }
  EXPECT_DOUBLE_EQ(st1[5].rho, 1.5);
  EXPECT_EQ(st1[5].remaining, 0);
  EXPECT_EQ(s.steps[1].active.size(), 5u);
  EXPECT_EQ(s.steps[2].active.size(), 3u);
  ExpectRel(s.end_s[5], 0.0160589, 1e-5, "f");
  ExpectRel(s.end_s[3], 0.0297983, 1e-5, "d");
  ExpectRel(s.end_s[0], 0.0363748, 1e-5, "a");
}

// The node reading gives f 10/7 and other step ends (mm.out).
TEST(SolveFig3, NodeReadingGivesOtherEnds) {
  const Solution s = Synchronous(paper::kFig3, Rules(RuleB::kNode));
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_NEAR(s.steps[0].active[5].rho, 10.0 / 7, 1e-12);
  ExpectRel(s.steps[0].end_s, 0.0152942, 1e-5, "step 1 end");
  ExpectRel(s.steps[1].end_s, 0.0295688, 1e-5, "step 2 end");
  ExpectRel(s.steps[2].end_s, 0.0363420, 1e-5, "step 3 end");
  EXPECT_NEAR(s.steps[0].active[0].remaining, 12411716, 100);
  EXPECT_NEAR(s.steps[1].active[0].remaining, 4422565, 100);
}

// Fig. 4 A, T_p: e 0.013382, c, d 0.026765, a, b 0.036132 s (node; the
// printed alpha is rounded: 5e-5 relative). Penalties per step: a, b 5, 4,
// 2; c, d 2.5, 2.5; e 1.25.
TEST(SolveFig4, GraphANodeReading) {
  const Solution s = Synchronous(paper::kFig4A, Rules(RuleB::kNode));
  const std::vector<double> want = {0.036132, 0.036132, 0.026765, 0.026765,
                                    0.013382};
  for (size_t i = 0; i < want.size(); ++i)
    ExpectRel(s.end_s[i], want[i], 5e-5, "edge " + std::to_string(i));
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(s.steps[0].active[0].rho, 5);
  EXPECT_DOUBLE_EQ(s.steps[1].active[0].rho, 4);
  EXPECT_DOUBLE_EQ(s.steps[2].active[0].rho, 2);
  EXPECT_DOUBLE_EQ(s.steps[1].active[2].rho, 2.5);
}

// Fig. 4 A under the edge reading: e's printed 1.5, but T_p of e and a, b
// no longer match the printed 0.013382 and 0.036132 (mm.out: 0.016059,
// 0.0364).
TEST(SolveFig4, GraphAEdgeReadingMissesThePrintedTimes) {
  const Solution s = Synchronous(paper::kFig4A, Rules(RuleB::kEdge));
  ExpectRel(s.end_s[4], 0.016059, 5e-5, "e");
  ExpectRel(s.end_s[0], 0.036400, 5e-5, "a");
  EXPECT_GT(s.end_s[4] / 0.013382, 1.1);
}

// Fig. 4 B, T_p: a, b 0.043894; c, d, e 0.037471 (both readings).
TEST(SolveFig4, GraphBBothReadings) {
  for (RuleB b : {RuleB::kNode, RuleB::kEdge}) {
    const Solution s = Synchronous(paper::kFig4B, Rules(b));
    for (int i : {0, 1}) ExpectRel(s.end_s[i], 0.043894, 5e-5, "a, b");
    for (int i : {2, 3, 4}) ExpectRel(s.end_s[i], 0.037471, 5e-5, "c, d, e");
  }
}

// table.out, T/T_ref by the fluid solver: Fig. 2 graph 4 ab 2.67 / 2.75
// (node / edge), Fig. 4 A maxmin a 2.00 b 3.00 e 2.00, Fig. 4 B rules a
// 4.10.
TEST(SolveTable, MatchesReferenceFluidTimes) {
  const auto t = [](const char* g, const char* model, int edge) {
    return Synchronous(g, FindModel(model)->penalties).end_s[edge] / kTref;
  };
  EXPECT_NEAR(t(paper::kFig2Graph4, "mm2011-node", 0), 2.67, 0.005);
  EXPECT_NEAR(t(paper::kFig2Graph4, "mm2011-edge", 0), 2.75, 0.005);
  EXPECT_NEAR(t(paper::kFig4A, "maxmin", 0), 2.00, 0.005);
  EXPECT_NEAR(t(paper::kFig4A, "maxmin", 1), 3.00, 0.005);
  EXPECT_NEAR(t(paper::kFig4A, "maxmin", 4), 2.00, 0.005);
  EXPECT_NEAR(t(paper::kFig4B, "mm2011-node", 0), 4.10, 0.005);
  EXPECT_NEAR(t(paper::kFig3, "mm2011-node", 0), 3.39, 0.005);
  EXPECT_NEAR(t(paper::kFig3, "mm2011-edge", 0), 3.40, 0.005);
}

TEST(SolveInvariants, LoneTransferTakesAlphaTimesSize) {
  const Graph g = Parse("a>b");
  for (const Model& m : Models())
    for (double bytes : {1.0, 4096.0, kBytes, 3e9}) {
      const Solution s = Solve(g, {{bytes, 0.25}}, kAlpha, m.penalties);
      EXPECT_DOUBLE_EQ(s.end_s[0], 0.25 + kAlpha * bytes) << m.name;
      ASSERT_EQ(s.steps.size(), 1u);
      EXPECT_EQ(s.steps[0].begin_s, 0.25);
    }
}

TEST(SolveInvariants, PenaltiesAtLeastOneInEveryStep) {
  for (const Model& m : Models())
    for (const char* g :
         {paper::kFig3, paper::kFig4A, paper::kFig4B, paper::kFig2Graph3})
      for (const Step& st : Synchronous(g, m.penalties).steps) {
        EXPECT_LT(st.begin_s, st.end_s) << m.name << g;
        for (const StepEdge& e : st.active) EXPECT_GE(e.rho, 1.0) << m.name;
      }
}

// A fan-out shares its NIC fairly (equal penalties in every step): the
// transfers end in the order of their sizes, and the last at alpha times
// the total (the NIC is never idle).
TEST(SolveInvariants, EqualPenaltiesEndInOrderOfSize) {
  const Graph g = Parse("a>b,a>c,a>d,a>e");
  const std::vector<Transfer> t = {{3e6, 0}, {1e6, 0}, {4e6, 0}, {2e6, 0}};
  for (const char* model : {"mm2011-node", "mm2011-edge", "maxmin"}) {
    const Solution s = Solve(g, t, kAlpha, FindModel(model)->penalties);
    EXPECT_LT(s.end_s[1], s.end_s[3]) << model;
    EXPECT_LT(s.end_s[3], s.end_s[0]) << model;
    EXPECT_LT(s.end_s[0], s.end_s[2]) << model;
    EXPECT_NEAR(s.end_s[2], kAlpha * 10e6, 1e-15) << model;
  }
}

// A transfer that starts later joins at its start: a>b alone, then shares
// a's NIC with a>c, then alone again.
TEST(SolveInvariants, LateStartJoinsAtItsStart) {
  const Graph g = Parse("a>b,a>c");
  const double half = kAlpha * 1e6 / 2;
  const Solution s = Solve(g, {{1e6, 0}, {1e6, half}}, kAlpha,
                           FindModel("mm2011-node")->penalties);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(s.steps[0].end_s, half);
  EXPECT_EQ(s.steps[0].active.size(), 1u);
  // After the start both move at half speed; a>b's last half takes 2 half.
  EXPECT_NEAR(s.end_s[0], 3 * half, 1e-15);
  EXPECT_NEAR(s.end_s[1], 4 * half, 1e-15);
}

TEST(SolveInvariants, IdleGapBeforeALateStart) {
  const Graph g = Parse("a>b,c>d");
  const Solution s =
      Solve(g, {{1e6, 0}, {1e6, 1.0}}, kAlpha, FindModel("maxmin")->penalties);
  EXPECT_DOUBLE_EQ(s.end_s[1], 1.0 + kAlpha * 1e6);
  EXPECT_EQ(s.steps.size(), 2u);
}

TEST(SolveErrors, RejectsBadInput) {
  const Graph g = Parse("a>b,a>c");
  const Penalties p = FindModel("maxmin")->penalties;
  EXPECT_THROW(Solve(g, {{1, 0}}, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Solve(g, {{1, 0}, {0, 0}}, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Solve(g, {{1, 0}, {1, -1}}, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Solve(g, {{1, 0}, {1, 0}}, 0.0, p), std::invalid_argument);
  EXPECT_THROW(Solve(g, {{1, 0}, {1.0 / 0.0, 0}}, kAlpha, p),
               std::invalid_argument);
}

// Fault injection: a model that returns a penalty below 1, a NaN or the
// wrong count is refused, never looped on.
TEST(SolveErrors, RefusesABrokenModel) {
  const Graph g = Parse("a>b,a>c");
  const std::vector<Penalties> broken = {
      [](const Graph& h) { return std::vector<double>(h.edges.size(), 0.5); },
      [](const Graph& h) {
        return std::vector<double>(h.edges.size(), 0.0 / 0.0);
      },
      [](const Graph&) { return std::vector<double>(1, 1.0); },
  };
  for (const Penalties& p : broken)
    EXPECT_THROW(SolveSynchronous(g, 1e6, kAlpha, p), std::logic_error);
}

}  // namespace
}  // namespace verbsemu::contention
