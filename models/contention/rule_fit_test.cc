// The rules' weights fitted to penalties made by the rules with known
// weights: they come back, with intervals that hold them; a weight no
// penalty depends on is left at 1 and said to be undetermined.
#include "models/contention/rule_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "models/contention/fit.h"
#include "models/contention/synth.h"

namespace verbsemu::contention {
namespace {

std::vector<Graph> Graphs(const std::vector<std::string>& texts) {
  std::vector<Graph> graphs;
  for (const std::string& t : texts) {
    std::string why;
    auto g = ParseGraph(t, &why);
    EXPECT_TRUE(g) << t << ": " << why;
    if (g && g->edge_count() > 1) graphs.push_back(std::move(*g));
  }
  return graphs;
}

// Every edge's penalty under `reading` with weights `w`, times a log-normal
// factor exp(noise * N(0, 1)); relative half-width `noise` each.
std::vector<MeasuredPenalty> Made(const std::vector<Graph>& graphs,
                                  RuleB reading, RuleWeights w, double noise,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<MeasuredPenalty> out;
  for (const Graph& g : graphs) {
    const std::vector<double> rho = Mm2011Penalties(g, reading, w);
    for (int e = 0; e < g.edge_count(); ++e)
      out.push_back({&g, e, rho[e] * std::exp(noise * normal(rng)), noise});
  }
  return out;
}

TEST(RuleFit, ThePapersRulesGiveWeightsOfOne) {
  const std::vector<Graph> graphs = Graphs(SynthGraphs());
  const auto fits = FitRuleWeights(Made(graphs, RuleB::kNode, {}, 0, 1));
  ASSERT_EQ(fits.size(), 2u);
  const RuleFit& node = fits[0];
  EXPECT_EQ(node.reading, RuleB::kNode);
  EXPECT_GT(node.b.n, 0);
  EXPECT_GT(node.c.n, 0);
  EXPECT_NEAR(node.b.value, 1, 1e-6);
  EXPECT_NEAR(node.c.value, 1, 1e-6);
  EXPECT_LT(node.rms_log_err, 1e-9);
  EXPECT_EQ(fits[1].reading, RuleB::kEdge);
  EXPECT_GT(fits[1].rms_log_err_paper, 0.01)
      << "the set must tell the two readings of rule (b) apart";
}

// Penalties made with rule (b) left out (w_b 0): the fit puts w_b at its
// bound, where it has no interval (not one of NaNs printed as numbers).
TEST(RuleFit, AWeightAtItsBoundHasNoInterval) {
  const std::vector<Graph> graphs = Graphs(SynthGraphs());
  const auto fits = FitRuleWeights(Made(graphs, RuleB::kNode, {0, 1}, 0, 1));
  ASSERT_EQ(fits.size(), 2u);
  const RuleFit& node = fits[0];
  EXPECT_NEAR(node.b.value, 0, 1e-3);
  EXPECT_FALSE(node.b.has_interval()) << node.b.low << " " << node.b.high;
  EXPECT_NEAR(node.c.value, 1, 1e-3);
  EXPECT_TRUE(node.c.has_interval());
}

// Weights 0.7 and 1.3 under either reading, 2% noise, ten seeds: the fit
// of the right reading recovers them, its 95% intervals hold them in at
// least 8 seeds of 10, and its error is below the other reading's.
TEST(RuleFit, KnownWeightsComeBackWithinTheirIntervals) {
  const std::vector<Graph> graphs = Graphs(SynthGraphs());
  const RuleWeights truth{0.7, 1.3};
  for (const RuleB reading : {RuleB::kNode, RuleB::kEdge}) {
    const std::size_t own = reading == RuleB::kNode ? 0 : 1;
    int b_in = 0, c_in = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      std::vector<MeasuredPenalty> made =
          Made(graphs, reading, truth, 0.02, seed);
      // A half-width that is no number is weighted as the 1% floor.
      if (seed == 1) made[0].rel_halfwidth = std::nan("");
      const auto fits = FitRuleWeights(made);
      ASSERT_EQ(fits.size(), 2u);
      const RuleFit& f = fits[own];
      EXPECT_NEAR(f.b.value, truth.b, 0.1) << "seed " << seed;
      EXPECT_NEAR(f.c.value, truth.c, 0.05) << "seed " << seed;
      EXPECT_LT(f.b.low, f.b.value);
      b_in += f.b.low <= truth.b && truth.b <= f.b.high;
      c_in += f.c.low <= truth.c && truth.c <= f.c.high;
      EXPECT_GT(f.rms_log_err_paper, 2 * f.rms_log_err) << "seed " << seed;
    }
    EXPECT_GE(b_in, 8);
    EXPECT_GE(c_in, 8);
  }
}

// Fan-outs, a duplex and two pairs apart: every edge falls under rule (a),
// so neither weight is determined and both stay 1.
TEST(RuleFit, AWeightNoPenaltyDependsOnIsLeftAtOne) {
  const std::vector<Graph> graphs =
      Graphs({"a>b,a>c", "a>b,a>c,a>d", "a>b,b>a", "a>b,c>d"});
  const auto fits = FitRuleWeights(Made(graphs, RuleB::kNode, {}, 0.01, 3));
  ASSERT_EQ(fits.size(), 2u);
  for (const RuleFit& f : fits) {
    EXPECT_EQ(f.b.n, 0);
    EXPECT_EQ(f.c.n, 0);
    EXPECT_EQ(f.b.value, 1);
    EXPECT_EQ(f.c.value, 1);
    EXPECT_EQ(f.b.low, f.b.high);
  }
  EXPECT_TRUE(FitRuleWeights({}).empty());
}

// Through the whole fit: synthetic measurements of the paper's rules
// (node reading, 1% noise) give weights within 1 +- 0.1.
TEST(RuleFit, TheFitReportsTheWeightsOfItsPenalties) {
  SynthOptions o;
  o.model = FindModel("mm2011-node");
  o.reps = 5;
  o.seed = 7;
  const FitResult f = Fit(Synthesize(o), {});
  ASSERT_EQ(f.rule_weights.size(), 2u);
  const RuleFit& node = f.rule_weights[0];
  EXPECT_GT(node.n, 10);
  EXPECT_NEAR(node.b.value, 1, 0.1);
  EXPECT_NEAR(node.c.value, 1, 0.1);
  EXPECT_LE(node.rms_log_err, node.rms_log_err_paper);
}

}  // namespace
}  // namespace verbsemu::contention
