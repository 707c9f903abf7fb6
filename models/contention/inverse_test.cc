// Inversion of static-synchronous graphs (Martinasso & Mehaut, Euro-Par
// 2011, section 3.3): round trips through the forward solver, the paper's
// Fig. 4 measurements (values from the project's notes, A.0.8), and bad
// data.
#include "models/contention/inverse.h"

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
using paper::Parse;

const char* const kGraphs[] = {paper::kFig2Graph1, paper::kFig2Graph2,
                               paper::kFig2Graph3, paper::kFig2Graph4,
                               paper::kFig3,       paper::kFig4A,
                               paper::kFig4B,      "a>b",
                               "a>b,a>b,c>b"};

// Forward-solve with a model, invert with the same model for the residual
// graphs: the first step's penalties come back.
TEST(Invert, RoundTripThroughTheSolver) {
  for (const Model& m : Models())
    for (const char* text : kGraphs) {
      const Graph g = Parse(text);
      const Solution s = SolveSynchronous(g, kBytes, kAlpha, m.penalties);
      const Inversion inv = Invert(g, s.end_s, kBytes, kAlpha, m.penalties);
      const std::vector<double> want = m.penalties(g);
      for (int i = 0; i < g.edge_count(); ++i) {
        EXPECT_NEAR(inv.rho1[i], want[i], 1e-9 * want[i]) << m.name << text;
        EXPECT_NEAR(inv.step1_bytes[i], s.steps[0].end_s / (kAlpha * want[i]),
                    1e-3)
            << m.name << text;
      }
    }
}

// The paper's recursion: the residual graphs' penalties are themselves
// inverted from their measured (here: forward-solved) times. A fallback
// that throws proves every residual came from the set.
TEST(Invert, RecursesOverMeasuredResidualGraphs) {
  const Penalties fail = [](const Graph& g) -> std::vector<double> {
    throw std::runtime_error("no measured shape for " + g.ToString());
  };
  for (const Model& m : Models())
    for (const char* text : {paper::kFig3, paper::kFig4A, paper::kFig4B}) {
      const Graph g = Parse(text);
      MeasuredShapes set(kBytes, kAlpha, fail);
      // Measure g and each of its residual graphs (forward-solved).
      const Solution s = SolveSynchronous(g, kBytes, kAlpha, m.penalties);
      for (const Step& st : s.steps) {
        std::vector<int> ids;
        for (const StepEdge& e : st.active) ids.push_back(e.edge);
        const Graph r = g.Subgraph(ids);
        set.Add(r, SolveSynchronous(r, kBytes, kAlpha, m.penalties).end_s);
      }
      const std::vector<double> got = set(g), want = m.penalties(g);
      for (int i = 0; i < g.edge_count(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-9 * want[i]) << m.name << text;
      EXPECT_THROW(set(Parse("a>b,c>b,c>d")), std::runtime_error);
    }
}

// Relabelled graphs find their shape; penalties follow the edges.
TEST(MeasuredShapes, LooksUpByShape) {
  const Penalties rules = FindModel("mm2011-node")->penalties;
  MeasuredShapes set(kBytes, kAlpha, rules);
  const Graph g = Parse("a>b,a>c,d>b");
  set.Add(
      g, {2.9 * kAlpha * kBytes, 2.6 * kAlpha * kBytes, 1.5 * kAlpha * kBytes});
  const Graph h = Parse("q>r,p>s,p>r");  // d>b, a>c, a>b
  const std::vector<double> rho = set(h);
  const Inversion inv = Invert(
      g, {2.9 * kAlpha * kBytes, 2.6 * kAlpha * kBytes, 1.5 * kAlpha * kBytes},
      kBytes, kAlpha, rules);
  EXPECT_DOUBLE_EQ(rho[0], inv.rho1[2]);
  EXPECT_DOUBLE_EQ(rho[1], inv.rho1[1]);
  EXPECT_DOUBLE_EQ(rho[2], inv.rho1[0]);
}

// A.0.8 of the notes: Fig. 4's measured T_m inverted with the rules (node)
// for the later steps. Graph A: a, b 4.776; c, d 2.677; e 1.253. Graph B:
// a, b 4.931; c, d, e 3.743. Pairs measured within 0.1% end together.
TEST(Invert, Fig4MeasuredTimes) {
  const Penalties rules = FindModel("mm2011-node")->penalties;
  const Inversion a = Invert(Parse(paper::kFig4A),
                             {0.036328, 0.036326, 0.027653, 0.027651, 0.013413},
                             kBytes, kAlpha, rules, 1e-3);
  const std::vector<double> want_a = {4.776, 4.776, 2.677, 2.677, 1.253};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(a.rho1[i], want_a[i], 0.0015) << i;
  const Inversion b = Invert(Parse(paper::kFig4B),
                             {0.045236, 0.045228, 0.040073, 0.040072, 0.040071},
                             kBytes, kAlpha, rules, 1e-3);
  const std::vector<double> want_b = {4.931, 4.931, 3.743, 3.743, 3.743};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(b.rho1[i], want_b[i], 0.0015) << i;
}

TEST(Invert, RefusesInconsistentTimes) {
  // The second edge would have moved 4.9 m after the first ended.
  const double tref = kAlpha * kBytes;
  EXPECT_THROW(Invert(Parse("a>c,b>c"), {0.1 * tref, 5 * tref}, kBytes, kAlpha,
                      FindModel("maxmin")->penalties),
               std::domain_error);
}

TEST(Invert, RejectsBadInput) {
  const Penalties p = FindModel("maxmin")->penalties;
  const Graph g = Parse("a>b,a>c");
  EXPECT_THROW(Invert(g, {1.0}, kBytes, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Invert(g, {1.0, 0.0}, kBytes, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Invert(g, {1.0, 1.0}, 0.0, kAlpha, p), std::invalid_argument);
  EXPECT_THROW(Invert(g, {1.0, 1.0}, kBytes, -1.0, p), std::invalid_argument);
  MeasuredShapes set(kBytes, kAlpha, p);
  EXPECT_THROW(set.Add(g, {1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace verbsemu::contention
