#include "tools/fit/lm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace verbsemu::fit {
namespace {

// y = a * exp(-b x) + c.
double Decay(double x, std::span<const double> p) {
  return p[0] * std::exp(-p[1] * x) + p[2];
}

Model DecayModel(bool analytic) {
  Model m;
  m.f = Decay;
  if (analytic) {
    m.gradient = [](double x, std::span<const double> p, std::span<double> g) {
      const double e = std::exp(-p[1] * x);
      g[0] = e;
      g[1] = -p[0] * x * e;
      g[2] = 1;
    };
  }
  return m;
}

struct Data {
  std::vector<double> x, y;
};

Data MakeDecay(unsigned seed, double sigma) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  Data d;
  const double truth[] = {5, 0.7, 1.5};
  for (int i = 0; i < 40; ++i) {
    const double x = 0.25 * i;
    d.x.push_back(x);
    d.y.push_back(Decay(x, truth) + noise(rng));
  }
  return d;
}

class DecayTest : public ::testing::TestWithParam<bool> {};

TEST_P(DecayTest, RecoversParametersFromNoisyData) {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    Data d = MakeDecay(seed, 0.02);
    FitResult r =
        LevenbergMarquardt(DecayModel(GetParam()), d.x, d.y, {1.0, 0.1, 0.0});
    EXPECT_TRUE(r.converged()) << StopReasonName(r.reason);
    ASSERT_EQ(r.params.size(), 3u);
    EXPECT_NEAR(r.params[0], 5, 0.1) << "seed " << seed;
    EXPECT_NEAR(r.params[1], 0.7, 0.03) << "seed " << seed;
    EXPECT_NEAR(r.params[2], 1.5, 0.03) << "seed " << seed;
    EXPECT_GT(r.r2, 0.999);
    // The residual of an optimum is ~ noise: RMS close to sigma.
    const double rms = std::sqrt(r.ssr / d.x.size());
    EXPECT_LT(rms, 0.03);
    EXPECT_GT(rms, 0.01);
  }
}

INSTANTIATE_TEST_SUITE_P(Jacobian, DecayTest, ::testing::Values(true, false));

TEST(LmTest, ExactDataGivesExactFit) {
  Data d = MakeDecay(7, 0.0);
  FitResult r = LevenbergMarquardt(DecayModel(true), d.x, d.y, {2.0, 1.5, 0.0});
  EXPECT_NEAR(r.params[0], 5, 1e-6);
  EXPECT_NEAR(r.params[1], 0.7, 1e-6);
  EXPECT_NEAR(r.params[2], 1.5, 1e-6);
  EXPECT_LT(r.ssr, 1e-12);
  EXPECT_NEAR(r.r2, 1.0, 1e-12);
}

TEST(LmTest, RespectsBounds) {
  Data d = MakeDecay(3, 0.01);
  Bounds b;
  b.lower = {-1e9, -1e9, -1e9};
  b.upper = {1e9, 1e9, 1.0};  // Truth c = 1.5 is outside.
  FitResult r =
      LevenbergMarquardt(DecayModel(true), d.x, d.y, {1.0, 0.1, 0.0}, b);
  EXPECT_LE(r.params[2], 1.0);
  EXPECT_NEAR(r.params[2], 1.0, 1e-9);  // Pinned at the bound.
  // Start outside the bounds is projected in.
  FitResult s =
      LevenbergMarquardt(DecayModel(true), d.x, d.y, {1.0, 0.1, 7.0}, b);
  EXPECT_LE(s.params[2], 1.0);
}

TEST(LmTest, MultiStartPicksTheBestLocalMinimum) {
  // y = sin(w x) has many local minima in w; only a start near the truth
  // finds it.
  Model m;
  m.f = [](double x, std::span<const double> p) { return std::sin(p[0] * x); };
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(0.1 * i);
    y.push_back(std::sin(3.0 * x.back()));
  }
  FitResult bad = LevenbergMarquardt(m, x, y, {0.5});
  EXPECT_GT(std::abs(bad.params[0] - 3.0), 0.1);
  FitResult best = FitMultiStart(m, x, y, {{0.5}, {1.5}, {2.8}, {5.0}});
  EXPECT_NEAR(best.params[0], 3.0, 1e-6);
  EXPECT_LT(best.ssr, bad.ssr);
}

TEST(LmTest, RejectsBadInput) {
  std::vector<double> x = {1, 2, 3};
  std::vector<double> y = {1, 2};
  FitResult r = LevenbergMarquardt(DecayModel(true), x, y, {1, 1, 1});
  EXPECT_EQ(r.reason, StopReason::kBadInput);
  EXPECT_FALSE(r.converged());
  std::vector<double> y_nan = {1, NAN, 3};
  EXPECT_EQ(LevenbergMarquardt(DecayModel(true), x, y_nan, {1, 1, 1}).reason,
            StopReason::kBadInput);
}

TEST(LmTest, RSquared) {
  const std::vector<double> y = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(RSquared(y, std::vector<double>{0, 0, 0, 0}), 1.0);
  // SST = 5; SSR = 1.
  EXPECT_DOUBLE_EQ(RSquared(y, std::vector<double>{1, 0, 0, 0}), 0.8);
  const std::vector<double> flat = {2, 2, 2};
  EXPECT_DOUBLE_EQ(RSquared(flat, std::vector<double>{0, 0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(RSquared(flat, std::vector<double>{0.1, 0, 0}), 0.0);
}

}  // namespace
}  // namespace verbsemu::fit
