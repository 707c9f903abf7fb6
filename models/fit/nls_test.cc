#include "models/fit/nls.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace verbsemu::fit {
namespace {

Model Line() {
  Model m;
  m.f = [](double x, std::span<const double> l) { return l[0] + l[1] * x; };
  m.gradient = [](double x, std::span<const double>, std::span<double> g) {
    g[0] = 1;
    g[1] = x;
  };
  return m;
}

TEST(FitNls, ExactDataExactParameters) {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const std::vector<double> y = {5, 7, 9, 11, 13};  // 3 + 2x
  const std::vector<double> w(x.size(), 1.0);
  const FitResult r = FitNls(Line(), x, y, w, {0, 0});
  ASSERT_TRUE(r.ok()) << r.stop;
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.params[0], 3, 1e-9);
  EXPECT_NEAR(r.params[1], 2, 1e-9);
  EXPECT_NEAR(r.r2, 1, 1e-12);
  EXPECT_EQ(r.dof, 3);
}

// The standard errors of a straight line have a closed form: GSL's
// covariance, scaled by the residual variance, must reproduce it.
TEST(FitNls, StandardErrorsOfAStraightLineMatchTheClosedForm) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 0.5);
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(i);
    y.push_back(1 + 0.3 * i + noise(rng));
  }
  const std::vector<double> w(x.size(), 1.0);
  const FitResult r = FitNls(Line(), x, y, w, {0, 0});
  ASSERT_TRUE(r.ok());
  const double n = 20;
  double mx = 0;
  for (double v : x) mx += v;
  mx /= n;
  double sxx = 0;
  for (double v : x) sxx += (v - mx) * (v - mx);
  const double s2 = r.ssr / (n - 2);
  EXPECT_NEAR(r.se[1], std::sqrt(s2 / sxx), 1e-9);
  EXPECT_NEAR(r.se[0], std::sqrt(s2 * (1.0 / n + mx * mx / sxx)), 1e-9);
  // t(0.975, 18) = 2.1009
  EXPECT_NEAR(r.HalfWidth95(1), 2.1009 * r.se[1], 1e-3 * r.se[1]);
}

TEST(FitNls, RelativeWeightsFitRelativeDeviations) {
  const std::vector<double> y = {1, 10, 100};
  const std::vector<double> w = RelativeWeights(y);
  EXPECT_DOUBLE_EQ(w[0], 1);
  EXPECT_DOUBLE_EQ(w[1], 0.01);
  EXPECT_DOUBLE_EQ(w[2], 1e-4);
}

TEST(FitNls, AParameterAtItsBoundIsNotIdentified) {
  const std::vector<double> x = {1, 2, 3, 4};
  const std::vector<double> y = {5, 7, 9, 11};  // slope 2
  const std::vector<double> w(x.size(), 1.0);
  Bounds b{{-10, -10}, {10, 1}};  // the slope may not exceed 1
  const FitResult r = FitNls(Line(), x, y, w, {0, 0}, b);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r.params[1], 1);
  EXPECT_TRUE(r.at_bound[1]);
  EXPECT_FALSE(r.Identified(1));
  EXPECT_TRUE(std::isnan(r.HalfWidth95(1)));
  EXPECT_TRUE(r.Identified(0));
}

TEST(FitNls, CentralDifferencesWithoutAGradient) {
  Model m;
  m.f = [](double x, std::span<const double> l) {
    return l[0] * std::exp(-l[1] * x);
  };
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    y.push_back(5 * std::exp(-0.3 * i));
  }
  const std::vector<double> w(x.size(), 1.0);
  const FitResult r = FitNls(m, x, y, w, {1, 0.1});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.params[0], 5, 1e-6);
  EXPECT_NEAR(r.params[1], 0.3, 1e-6);
}

TEST(FitNls, BadInputIsNotOk) {
  const std::vector<double> x = {1}, y = {1, 2}, w = {1};
  EXPECT_FALSE(FitNls(Line(), x, y, w, {0, 0}).ok());
  EXPECT_FALSE(FitNls(Line(), x, x, w, {0, 0}).ok());  // fewer points than λ
}

TEST(FitMultiStart, KeepsTheLowestWeightedSsr) {
  Model m;  // two minima: y = l² x, any sign of l
  m.f = [](double x, std::span<const double> l) { return l[0] * l[0] * x; };
  const std::vector<double> x = {1, 2, 3}, y = {4, 8, 12}, w = {1, 1, 1};
  const FitResult r = FitMultiStart(m, x, y, w, {{-1}, {1}});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(std::abs(r.params[0]), 2, 1e-6);
}

TEST(LinearLeastSquares, SolvesAndRejectsRankDeficiency) {
  const std::vector<double> basis = {1, 1, 1, 2, 1, 3};  // rows (1, x)
  const std::vector<double> y = {3, 5, 7}, w = {1, 1, 1};
  auto c = LinearLeastSquares(basis, 2, y, w);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR((*c)[0], 1, 1e-9);
  EXPECT_NEAR((*c)[1], 2, 1e-9);
  const std::vector<double> same = {1, 2, 1, 2, 1, 2};
  EXPECT_FALSE(LinearLeastSquares(same, 2, y, w).has_value());
}

TEST(ModelComparison, AiccAndNestedFTest) {
  // n ln(wssr/n) + 2k + 2k(k+1)/(n-k-1)
  EXPECT_NEAR(Aicc(2.0, 10, 2), 10 * std::log(0.2) + 4 + 12.0 / 7, 1e-12);
  EXPECT_TRUE(std::isnan(Aicc(2.0, 3, 2)));
  const FTest t = NestedFTest(10, 2, 4, 3, 13);  // F = (6/1)/(4/10) = 15
  EXPECT_NEAR(t.f, 15, 1e-12);
  EXPECT_GT(t.p_value, 0);
  EXPECT_LT(t.p_value, 0.01);
  const FTest none = NestedFTest(4, 2, 4, 3, 13);
  EXPECT_NEAR(none.f, 0, 1e-12);
  EXPECT_NEAR(none.p_value, 1, 1e-12);
}

}  // namespace
}  // namespace verbsemu::fit
