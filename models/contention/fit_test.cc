// contentionfit's fit on synthetic measurements made by each model with
// noise (synth.h): it must pick the model that made the data and recover
// alpha and the first-step penalties within their 95% intervals, over many
// fixed seeds.
#include "models/contention/fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/contention/models.h"
#include "models/contention/synth.h"

namespace verbsemu::contention {
namespace {

constexpr double kRate = 262144;

ContendData Data(const char* model, std::uint64_t seed, double noise = 0.01,
                 int reps = 5, std::vector<std::string> graphs = {},
                 PenaltyCache* cache = nullptr) {
  SynthOptions o;
  o.graphs = std::move(graphs);
  o.model = FindModel(model);
  o.port_rate_Bps = kRate;
  o.noise = noise;
  o.reps = reps;
  o.seed = seed;
  o.cache = cache;
  return Synthesize(o);
}

TEST(Fit, NoiseFreeDataGiveTheModelsOwnNumbers) {
  const ContendData d = Data("mm2011-node", 1, 0.0, 2);
  const FitResult f = Fit(d, {});
  EXPECT_NEAR(f.alpha.value * kRate, 1, 1e-6);
  EXPECT_EQ(f.models[0].name, "mm2011-node");
  EXPECT_LT(f.models[0].max_err, 1e-6);
  EXPECT_EQ(f.later_model, "mm2011-node");
  // Its penalties are the model's; another model's are not all within 4%.
  EXPECT_GT(f.models[0].penalties, 10);
  EXPECT_LT(f.models[0].penalty_max_err, 1e-4);
  EXPECT_EQ(f.models[0].penalties_within4, 1);
  EXPECT_LT(f.models.back().penalties_within4, 1);
  EXPECT_EQ(f.models.back().penalties, f.models[0].penalties);
  ASSERT_FALSE(f.penalties.empty());
  for (const EdgePenalty& p : f.penalties) {
    const Graph& g = d.graphs[p.graph].graph;
    EXPECT_NEAR(p.rho1.value, FindModel("mm2011-node")->penalties(g)[p.edge],
                1e-4)
        << g.ToString() << " edge " << p.edge;
  }
}

// One run of one edge 30% late: every run counts it, the edge's median of
// three runs does not.
TEST(Fit, PerEdgeScoresTakeTheMedianOfTheRuns) {
  ContendData d = Data("mm2011-node", 1, 0.0, 3);
  MeasuredGraph& g = d.graphs.back();
  EdgeTiming& late = g.runs[0].edges[0];
  late.recv_end_ns = static_cast<std::int64_t>(
      1.3 * static_cast<double>(late.recv_end_ns - g.edges[0].start_offset_ns) +
      static_cast<double>(g.edges[0].start_offset_ns));
  const FitResult f = Fit(d, {});
  const ModelScore& m = f.models[0];
  EXPECT_GT(m.max_err, 0.25);
  EXPECT_LT(m.edge_max_err, 1e-6);
  int edges = 0;
  for (const MeasuredGraph& each : d.graphs) edges += each.graph.edge_count();
  EXPECT_EQ(m.edges, edges);
}

struct Coverage {
  int seeds = 0, picked = 0, alpha_in = 0, rho_in = 0, rho_n = 0;
};

// Fits `seeds` measurements made by `model` (1% noise, 5 runs per graph).
Coverage Over(const Model& truth, int seeds) {
  Coverage c;
  PenaltyCache cache;  // the same graphs in every seed
  FitOptions o;
  o.cache = &cache;
  for (int s = 1; s <= seeds; ++s) {
    const ContendData d =
        Data(std::string(truth.name).c_str(), 1000 + s, 0.01, 5, {}, &cache);
    const FitResult f = Fit(d, o);
    ++c.seeds;
    c.picked += f.models[0].name == truth.name;
    c.alpha_in += f.alpha.low * kRate <= 1 && 1 <= f.alpha.high * kRate;
    for (const EdgePenalty& p : f.penalties) {
      if (!p.flag.empty()) continue;
      const double rho = cache.Get(truth, d.graphs[p.graph].graph)[p.edge];
      ++c.rho_n;
      c.rho_in += p.rho1.low <= rho && rho <= p.rho1.high;
    }
  }
  return c;
}

class FitEachModel : public ::testing::TestWithParam<Model> {};

// Measured: 20 of 20 picked for each model; alpha 20 of 20; penalties
// 97-99% (the interval leaves out the noise of the later steps' medians,
// and adds alpha's).
TEST_P(FitEachModel, PicksItAndCoversItsParameters) {
  const Coverage c = Over(GetParam(), 20);
  RecordProperty("picked", c.picked);
  RecordProperty("alpha_covered", c.alpha_in);
  RecordProperty("rho_covered", c.rho_in);
  RecordProperty("rho_unflagged", c.rho_n);
  EXPECT_GE(c.picked, 19);
  EXPECT_GE(c.alpha_in, 17);
  ASSERT_GT(c.rho_n, 200);
  EXPECT_GE(c.rho_in, 0.9 * c.rho_n) << c.rho_in << " of " << c.rho_n;
}

INSTANTIATE_TEST_SUITE_P(All, FitEachModel, ::testing::ValuesIn(Models()),
                         [](const auto& info) {
                           std::string name(info.param.name);
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(Fit, TIntervalIsStudents) {
  const Interval i = TInterval({1, 2, 3});
  EXPECT_DOUBLE_EQ(i.value, 2);
  EXPECT_EQ(i.n, 3);
  // t(0.975, 2) = 4.3027; s / sqrt(n) = 1 / sqrt(3).
  EXPECT_NEAR(i.high - i.value, 4.3027 / std::sqrt(3.0), 1e-4);
  EXPECT_NEAR(i.value - i.low, 4.3027 / std::sqrt(3.0), 1e-4);
  const Interval one = TInterval({5});
  EXPECT_EQ(one.low, 5);
  EXPECT_EQ(one.high, 5);
}

TEST(Fit, AlphaNeedsAOneEdgeGraph) {
  ContendData d = Data("maxmin", 1, 0.01, 3);
  d.graphs.erase(d.graphs.begin());  // a>b
  try {
    Fit(d, {});
    FAIL() << "no alpha without a>b";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no one-edge graph (a>b)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Fit, UnknownModelIsRefused) {
  const ContendData d = Data("maxmin", 1, 0.01, 2);
  FitOptions o;
  o.models = {"maxmin", "fastest"};
  EXPECT_THROW(Fit(d, o), std::invalid_argument);
  o.models = {};
  o.later_model = "fastest";
  EXPECT_THROW(Fit(d, o), std::invalid_argument);
}

TEST(Fit, ComparesOnlyTheModelsAskedFor) {
  const ContendData d = Data("mm2011-node", 3, 0.01, 3);
  FitOptions o;
  o.models = {"maxmin", "ib-hol"};
  o.later_model = "mm2011-edge";
  const FitResult f = Fit(d, o);
  ASSERT_EQ(f.models.size(), 2u);
  EXPECT_EQ(f.models[0].name, "ib-hol");  // the closer of the two
  EXPECT_EQ(f.models[0].delta_aicc, 0);
  EXPECT_GT(f.models[1].delta_aicc, 10);
  EXPECT_EQ(f.later_model, "mm2011-edge");
}

// The paper's Fig. 5 groups: per edge count, graphs and transfers.
TEST(Fit, GroupsByEdgeCount) {
  const ContendData d = Data("mm2011-node", 1, 0.0, 2);
  const FitResult f = Fit(d, {});
  const std::vector<GroupScore>& g = f.models[0].groups;
  ASSERT_EQ(g.size(), 6u);
  const int graphs[] = {1, 6, 3, 4, 4, 2};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(g[k].edges, k + 1);
    EXPECT_EQ(g[k].graphs, graphs[k]) << k + 1 << " edges";
    EXPECT_EQ(g[k].transfers, graphs[k] * (k + 1) * 2) << k + 1 << " edges";
    EXPECT_LT(g[k].max_err, 1e-6);
  }
  EXPECT_GT(f.models.back().groups[4].max_graph_mean_err, 0.05);
}

// Fig. 4 A's X>P and X>Q move three quarters of their bytes after the first
// step: their first-step penalties are flagged.
TEST(Fit, FlagsAmplifiedAndUnrepeatedPenalties) {
  const std::vector<std::string> fig4a = {"a>b", "a>b,a>c,d>c,e>c,f>b"};
  const FitResult f = Fit(Data("mm2011-node", 1, 0.001, 3, fig4a), {});
  ASSERT_EQ(f.penalties.size(), 5u);
  EXPECT_EQ(f.penalties[0].flag.rfind("amplification 3.", 0), 0u)
      << f.penalties[0].flag;
  EXPECT_EQ(f.penalties[1].flag.rfind("amplification 3.", 0), 0u);
  EXPECT_EQ(f.penalties[2].flag, "");
  const FitResult once = Fit(Data("mm2011-node", 1, 0.001, 1, fig4a), {});
  EXPECT_EQ(once.penalties[2].flag, "one run: no interval");
}

// Times no model accounts for (the second edge of a fan-out ends so late
// that its second step alone would move more than its bytes) are counted
// and flagged, not inverted.
TEST(Fit, FlagsTimesThatCannotBeInverted) {
  ContendData d = Data("mm2011-node", 1, 0, 2, {"a>b", "a>b,a>c"});
  const std::int64_t alone = d.graphs[0].runs[0].edges[0].recv_end_ns;
  d.graphs[1].runs[1].edges[0].recv_end_ns = alone;
  d.graphs[1].runs[1].edges[1].recv_end_ns = alone * 5 / 2;
  const FitResult f = Fit(d, {});
  ASSERT_EQ(f.penalties.size(), 2u);
  EXPECT_EQ(f.penalties[0].inconsistent, 1);
  EXPECT_EQ(f.penalties[0].flag, "1 runs could not be inverted");
  EXPECT_EQ(f.penalties[0].rho1.n, 1);
}

// A graph that is not static-synchronous is compared but not inverted.
TEST(Fit, StaggeredGraphsAreNotInverted) {
  ContendData d = Data("maxmin", 1, 0.01, 2, {"a>b", "a>b,a>c"});
  d.graphs[1].edges[1].start_offset_ns = 1000;
  const FitResult f = Fit(d, {});
  EXPECT_TRUE(f.penalties.empty());
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0], "a>b,a>c: not inverted (not static-synchronous)");
}

int counted_calls = 0;

// 1 + the source's out-degree + a tenth of the destination's in-degree:
// different on most edges, the same for isomorphic graphs.
std::vector<double> Counted(const Graph& g) {
  ++counted_calls;
  const std::vector<int> out = g.OutDegrees(), in = g.InDegrees();
  std::vector<double> rho;
  for (const Edge& e : g.edges) rho.push_back(1 + out[e.src] + 0.1 * in[e.dst]);
  return rho;
}

TEST(PenaltyCache, ComputesEachShapeOnceAndMapsItBack) {
  const Model counted{"counted", Counted, ""};
  PenaltyCache cache;
  std::string why;
  const Graph g = ParseGraph("a>b,a>c,d>b", &why).value();
  const Graph relabelled = ParseGraph("y>z,x>w,x>z", &why).value();
  counted_calls = 0;
  EXPECT_EQ(cache.Get(counted, g), Counted(g));
  EXPECT_EQ(cache.Get(counted, relabelled), Counted(relabelled));
  EXPECT_EQ(counted_calls, 3);  // one for the cache, two in the test
  EXPECT_EQ(cache.Of(counted)(relabelled),
            (std::vector<double>{2.2, 3.1, 3.2}));
  EXPECT_EQ(counted_calls, 3);
}

}  // namespace
}  // namespace verbsemu::contention
