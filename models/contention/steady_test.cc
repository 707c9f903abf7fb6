// Penalties read from rates while every edge runs: on data a model made,
// they are the model's first-step penalties, with no inversion.
#include "models/contention/steady.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "models/contention/fit.h"
#include "models/contention/models.h"
#include "models/contention/synth.h"

namespace verbsemu::contention {
namespace {

TEST(Steady, ARateIsTheSlopeOfTheBytesCompleted) {
  // 1000-byte WRs every 2 us after a 7 us start: 500 MB/s.
  std::vector<std::int64_t> done;
  for (int k = 1; k <= 10; ++k) done.push_back(7000 + 2000 * k);
  EXPECT_NEAR(*CompletionRate(done, 1000, 10000, 0, 1e9, 4), 5e8, 1e-3);
  // Only the window's: two rates, the later one read.
  for (int k = 1; k <= 10; ++k) done.push_back(27000 + 4000 * k);
  EXPECT_NEAR(*CompletionRate(done, 1000, 20000, 27001, 1e9, 4), 2.5e8, 1e-3);
  // Too few in the window, or none apart in time.
  EXPECT_FALSE(CompletionRate(done, 1000, 20000, 8500, 13500, 4));
  EXPECT_FALSE(CompletionRate({5, 5, 5, 5}, 1000, 4000, 0, 10, 4));
  EXPECT_FALSE(CompletionRate(done, 0, 20000, 0, 1e9, 4));
}

TEST(Steady, TheLastWrCarriesWhatIsLeft) {
  // 3 full WRs of 1000 and a last one of 500, at 1 byte per ns.
  const std::vector<std::int64_t> done = {1000, 2000, 3000, 3500};
  EXPECT_NEAR(*CompletionRate(done, 1000, 3500, 0, 1e9, 4), 1e9, 1e-3);
}

ContendData Made(const char* model, double noise,
                 std::vector<std::string> graphs = {}) {
  SynthOptions o;
  o.model = FindModel(model);
  o.wr_size = 16384;
  o.reps = 3;
  o.noise = noise;
  o.graphs = std::move(graphs);
  return Synthesize(o);
}

// Without noise, each edge's steady penalty is its model's first-step one.
TEST(Steady, OnAModelsDataTheyAreItsPenalties) {
  for (const char* model : {"mm2011-node", "maxmin"}) {
    const ContendData d = Made(model, 0);
    const SteadyResult r = SteadyPenalties(d);
    EXPECT_NEAR(r.alone_Bps.value, 262144, 1) << model;
    ASSERT_GT(r.penalties.size(), 40u) << model;
    for (const SteadyPenalty& p : r.penalties) {
      const Graph& g = d.graphs[p.graph].graph;
      const double rho = FindModel(model)->penalties(g)[p.edge];
      EXPECT_EQ(p.rho.n, 3);
      EXPECT_NEAR(p.rho.value / rho, 1, 1e-6)
          << model << " " << d.graphs[p.graph].name << " edge " << p.edge;
    }
    EXPECT_TRUE(r.notes.empty());
  }
}

TEST(Steady, NothingWithoutCompletions) {
  SynthOptions o;
  o.model = FindModel("mm2011-node");
  const SteadyResult r = SteadyPenalties(Synthesize(o));
  EXPECT_EQ(r.alone_Bps.n, 0);
  EXPECT_TRUE(r.penalties.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(Steady, EdgesThatStartApartHaveNone) {
  ContendData d = Made("mm2011-node", 0, {"a>b", "a>b,a>c"});
  d.graphs[1].edges[1].start_offset_ns = 1000;
  const SteadyResult r = SteadyPenalties(d);
  EXPECT_TRUE(r.penalties.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("start at different times"), std::string::npos);
}

TEST(Steady, TooFewCompletionsGiveNoRate) {
  // 512 KiB in 256 KiB WRs: two completions per edge.
  SynthOptions o;
  o.model = FindModel("mm2011-node");
  o.wr_size = 262144;
  o.graphs = {"a>b", "a>b,a>c"};
  const SteadyResult r = SteadyPenalties(Synthesize(o));
  EXPECT_EQ(r.alone_Bps.n, 0);
  EXPECT_FALSE(r.notes.empty());
}

// Through the fit, 1% noise per edge and run: the model that made the data
// holds the steady penalties within 3%, and they agree with the inverted
// ones; max-min sharing does not.
TEST(Steady, TheFitScoresThemAgainstEachModel) {
  const ContendData d = Made("mm2011-node", 0.01);
  FitOptions o;
  o.models = {"mm2011-node", "maxmin"};
  const FitResult f = Fit(d, o);
  ASSERT_EQ(f.models[0].name, "mm2011-node");
  EXPECT_GT(f.models[0].steady.n, 40);
  EXPECT_LT(f.models[0].steady.median, 0.02);
  EXPECT_GE(f.models[0].steady.within3, 0.9);
  EXPECT_LT(f.models[1].steady.within3, 0.9);
  EXPECT_GT(f.steady_vs_inverted.n, 20);
  EXPECT_LT(f.steady_vs_inverted.median, 0.03);
}

TEST(Steady, BadOptionsAreRefused) {
  const ContendData d = Made("mm2011-node", 0, {"a>b"});
  EXPECT_THROW(SteadyPenalties(d, {0.5, 4}), std::invalid_argument);
  EXPECT_THROW(SteadyPenalties(d, {0.1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace verbsemu::contention
