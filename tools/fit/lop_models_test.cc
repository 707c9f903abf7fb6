#include "tools/fit/lop_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

namespace verbsemu::fit {
namespace {

struct Synthetic {
  std::vector<double> p, y;
};

template <std::size_t N>
Synthetic Make(double (*f)(double, std::span<const double>),
               const std::array<double, N>& truth, int pmax, double sigma,
               unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  Synthetic s;
  for (int p = 1; p <= pmax; ++p) {
    s.p.push_back(p);
    s.y.push_back(f(p, truth) + noise(rng));
  }
  return s;
}

// Largest |fit - truth| over p = 1..pmax.
template <std::size_t N>
double MaxCurveError(double (*f)(double, std::span<const double>),
                     const std::array<double, N>& truth,
                     const std::vector<double>& fitted, int pmax) {
  double worst = 0;
  for (int p = 1; p <= pmax; ++p) {
    worst = std::max(worst, std::abs(f(p, fitted) - f(p, truth)));
  }
  return worst;
}

struct RttCase {
  const char* name;
  std::array<double, 6> truth;
  int pmax;
  double sigma;
};

void PrintTo(const RttCase& c, std::ostream* os) { *os << c.name; }

class RttFitTest : public ::testing::TestWithParam<RttCase> {};

TEST_P(RttFitTest, RecoversCurveFromNoisyData) {
  const RttCase& c = GetParam();
  for (unsigned seed : {11u, 12u, 13u, 14u, 15u}) {
    Synthetic s = Make(RttModel, c.truth, c.pmax, c.sigma, seed);
    FitResult r = FitRtt(s.p, s.y);
    ASSERT_EQ(r.params.size(), kRttParams) << c.name << " seed " << seed;
    EXPECT_GT(r.r2, 0.99) << c.name << " seed " << seed;
    // A fit of the right model leaves residuals at the noise level...
    const double rms = std::sqrt(r.ssr / s.p.size());
    EXPECT_LT(rms, 1.3 * c.sigma) << c.name << " seed " << seed;
    // ...and reproduces the true curve within a few sigma everywhere.
    EXPECT_LT(MaxCurveError(RttModel, c.truth, r.params, c.pmax), 3 * c.sigma)
        << c.name << " seed " << seed;
    // Pole stays left of the data.
    EXPECT_GT(r.params[1] + 1, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RttFitTest,
    ::testing::Values(
        // Pipeline start-up, a flat section, then saturation (ns).
        RttCase{"pipeline_then_saturation",
                {2000, 0.5, 3000, -50, 0.15, 10},
                32,
                15},
        // The paper's fitted send/recv min RTT (us), Hoefler et al. 4.7.
        RttCase{"paper_send_min",
                {22.4558, -0.0140, 9.1637, 0.0174, -0.0625, 101.3065},
                64,
                0.05},
        // The paper's fitted RDMA write min RTT (us).
        RttCase{"paper_rdma_write_min",
                {16.7937, 0.0058, 4.4642, 4.4751, -0.0642, 12.9209},
                64,
                0.05},
        // Near-linear growth in p, as a software device shows (ns).
        RttCase{"growth", {500, 1, 2000, -3000, 0.05, 0}, 16, 10}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(OverheadFitTest, RecoversParametersFromNoisyData) {
  const std::array<double, 3> truths[] = {{80, 300, 0.5}, {50, 1200, 3}};
  for (const auto& truth : truths) {
    for (unsigned seed : {21u, 22u, 23u, 24u, 25u}) {
      const double sigma = 0.5;
      Synthetic s = Make(OverheadModel, truth, 32, sigma, seed);
      FitResult r = FitOverhead(s.p, s.y);
      ASSERT_EQ(r.params.size(), kOverheadParams);
      EXPECT_TRUE(r.converged()) << StopReasonName(r.reason);
      EXPECT_GT(r.r2, 0.99);
      EXPECT_LT(MaxCurveError(OverheadModel, truth, r.params, 32), 3 * sigma)
          << "seed " << seed;
      // The three-parameter model is identifiable: the lambdas come back.
      EXPECT_NEAR(r.params[0], truth[0], 0.05 * truth[0]) << "seed " << seed;
      EXPECT_NEAR(r.params[1], truth[1], 0.1 * truth[1]) << "seed " << seed;
      EXPECT_NEAR(r.params[2], truth[2], 0.1 * (truth[2] + 1))
          << "seed " << seed;
    }
  }
}

TEST(OverheadFitTest, ExactDataIsFitExactly) {
  const std::array<double, 3> truth = {120, 900, 2};
  Synthetic s = Make(OverheadModel, truth, 16, 0.0, 1);
  FitResult r = FitOverhead(s.p, s.y);
  EXPECT_NEAR(r.params[0], 120, 1e-4);
  EXPECT_NEAR(r.params[1], 900, 1e-3);
  EXPECT_NEAR(r.params[2], 2, 1e-5);
}

TEST(LopModelsTest, AnalyticGradientsMatchFiniteDifferences) {
  const std::vector<double> rtt = {2000, 0.5, 3000, -50, 0.15, 10};
  const std::vector<double> ov = {80, 300, 0.5};
  for (const auto& [model, params] :
       {std::pair{MakeRttModel(), rtt}, std::pair{MakeOverheadModel(), ov}}) {
    for (double p : {1.0, 3.0, 17.0}) {
      std::vector<double> g(params.size());
      model.gradient(p, params, g);
      for (std::size_t j = 0; j < params.size(); ++j) {
        std::vector<double> up = params, down = params;
        const double h = 1e-6 * std::max(1.0, std::abs(params[j]));
        up[j] += h;
        down[j] -= h;
        const double fd = (model.f(p, up) - model.f(p, down)) / (2 * h);
        EXPECT_NEAR(g[j], fd, 1e-5 * std::max(1.0, std::abs(fd)))
            << "param " << j << " p " << p;
      }
    }
  }
}

TEST(LopModelsTest, StartsComeFromTheData) {
  const std::array<double, 3> truth = {80, 300, 0.5};
  Synthetic s = Make(OverheadModel, truth, 32, 0.0, 1);
  auto starts = OverheadStarts(s.p, s.y);
  ASSERT_FALSE(starts.empty());
  // The best grid start is already close to the data.
  double worst = 0;
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    worst =
        std::max(worst, std::abs(OverheadModel(s.p[i], starts[0]) - s.y[i]));
  }
  EXPECT_LT(worst, 20);
}

TEST(LopModelsTest, TooFewPointsIsRejected) {
  std::vector<double> p = {1, 2, 3, 4, 5}, y = {5, 4, 3, 3, 3};
  EXPECT_EQ(FitRtt(p, y).reason, StopReason::kBadInput);
  std::vector<double> p2 = {1, 2}, y2 = {5, 4};
  EXPECT_EQ(FitOverhead(p2, y2).reason, StopReason::kBadInput);
}

}  // namespace
}  // namespace verbsemu::fit

namespace verbsemu::fit {
namespace {

// Global-optimum check over many random LoP-shaped truths: the multi-start
// fit must reach a sum of squares no worse than the true parameters give.
TEST(RttFitTest, RandomTruthsFitAtLeastAsWellAsTheTruth) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0, 1);
  for (int t = 0; t < 150; ++t) {
    const int pmax = t % 3 == 0 ? 16 : (t % 3 == 1 ? 32 : 64);
    const double range = pmax - 1;
    std::vector<double> truth = {
        500 + 5000 * u(rng), -0.9 + 3 * u(rng), 2000 + 8000 * u(rng), 0, 0, 0};
    const double rate = (u(rng) < 0.5 ? -1 : 1) * (0.3 + 6 * u(rng)) / range;
    truth[4] = rate;
    truth[5] = 1 + range * u(rng);
    // Saturation changes the curve by 500..5000 over the data range.
    const double span = std::abs(std::exp(rate * (pmax - truth[5])) -
                                 std::exp(rate * (1 - truth[5])));
    truth[3] = -(500 + 4500 * u(rng)) / span * (rate > 0 ? 1 : -1);
    std::normal_distribution<double> noise(0, 50);
    std::vector<double> p, y;
    for (int i = 1; i <= pmax; ++i) {
      p.push_back(i);
      y.push_back(RttModel(i, truth) + noise(rng));
    }
    double ssr_truth = 0;
    for (int i = 0; i < pmax; ++i) {
      const double d = y[i] - RttModel(p[i], truth);
      ssr_truth += d * d;
    }
    FitResult r = FitRtt(p, y);
    EXPECT_LE(r.ssr, ssr_truth * (1 + 1e-6)) << "case " << t;
  }
}

}  // namespace
}  // namespace verbsemu::fit
