#include "models/lop/lop_models.h"

#include <gtest/gtest.h>

#include <random>

namespace verbsemu::fit {
namespace {

const ModelSpec& Spec(const std::vector<ModelSpec>& family,
                      const std::string& name) {
  for (const ModelSpec& s : family) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no model " + name);
}

// y = f(p; truth) · (1 + relative noise), p = 1..n.
void Synthetic(const ModelSpec& spec, const std::vector<double>& truth, int n,
               double noise, unsigned seed, std::vector<double>& p,
               std::vector<double>& y) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> e(0, noise);
  p.clear();
  y.clear();
  for (int i = 1; i <= n; ++i) {
    p.push_back(i);
    y.push_back(spec.model.f(i, truth) * (1 + e(rng)));
  }
}

// The acceptance case: known λ of the full LoP t_rtt (a pipeline start-up,
// a constant and a saturation term, in ns) come back inside the 95%
// intervals the fit reports, and AICc picks the full model.
TEST(FitFamily, RecoversKnownLopLambdaWithinTheirIntervals) {
  const ModelSpec& lop = Spec(RttFamily(), "lop");
  const std::vector<double> truth = {20000, 0.5, 9000, -40, 0.08};
  std::vector<double> p, y;
  Synthetic(lop, truth, 64, 0.005, 11, p, y);
  const FamilyFit f = FitFamily(RttFamily(), p, y);
  ASSERT_NE(f.Chosen(), nullptr);
  EXPECT_EQ(f.Chosen()->spec->name, "lop");
  const FitResult& r = f.Chosen()->fit;
  for (std::size_t j = 0; j < truth.size(); ++j) {
    ASSERT_TRUE(r.Identified(j)) << lop.params[j];
    EXPECT_LE(std::abs(r.params[j] - truth[j]), r.HalfWidth95(j))
        << lop.params[j] << " = " << r.params[j] << " ± " << r.HalfWidth95(j)
        << ", truth " << truth[j];
  }
  // The LogP member is rejected by the F-test.
  EXPECT_LT(f.Chosen()->vs_logp.p_value, 1e-6);
}

// Intervals that mean what they say: over many noisy data sets the 95%
// intervals of the pipeline model cover the truth about 95% of the time.
TEST(FitFamily, IntervalsCoverTheTruthAtTheirNominalRate) {
  const ModelSpec& pipe = Spec(RttFamily(), "pipeline");
  const std::vector<double> truth = {15000, 0.3, 8000};
  constexpr int kSets = 300;
  std::vector<int> covered(truth.size(), 0);
  for (int s = 0; s < kSets; ++s) {
    std::vector<double> p, y;
    Synthetic(pipe, truth, 16, 0.02, 100 + s, p, y);
    const std::vector<double> w = RelativeWeights(y);
    const FitResult r = FitMultiStart(pipe.model, p, y, w, pipe.starts(p, y, w),
                                      pipe.bounds(p));
    ASSERT_TRUE(r.ok());
    for (std::size_t j = 0; j < truth.size(); ++j) {
      if (std::abs(r.params[j] - truth[j]) <= r.HalfWidth95(j)) ++covered[j];
    }
  }
  for (std::size_t j = 0; j < truth.size(); ++j) {
    const double rate = static_cast<double>(covered[j]) / kSets;
    EXPECT_GT(rate, 0.88) << pipe.params[j];
    EXPECT_LT(rate, 0.995) << pipe.params[j];
  }
}

TEST(FitFamily, LogPDataKeepTheLogPModel) {
  const ModelSpec& logp = Spec(RttFamily(), "logp");
  std::vector<double> p, y;
  Synthetic(logp, {3000, 12000}, 12, 0.01, 5, p, y);
  const FamilyFit f = FitFamily(RttFamily(), p, y);
  ASSERT_NE(f.Chosen(), nullptr);
  EXPECT_EQ(f.Chosen()->spec->name, "logp");
  EXPECT_EQ(f.LogP(), &f.fits.front());
  for (const ModelFit& m : f.fits) {
    if (m.spec->name != "logp") {
      EXPECT_GT(m.vs_logp.p_value, 0.01);
    }
  }
  EXPECT_NEAR(f.Chosen()->fit.params[0], 3000, 3 * f.Chosen()->fit.se[0]);
}

TEST(FitFamily, OverheadFamily) {
  const ModelSpec& ov = Spec(OverheadFamily(), "lop");
  std::vector<double> p, y;
  Synthetic(ov, {500, 900, -0.1}, 16, 0.003, 3, p, y);
  FamilyFit f = FitFamily(OverheadFamily(), p, y);
  ASSERT_NE(f.Chosen(), nullptr);
  EXPECT_EQ(f.Chosen()->spec->name, "lop");
  EXPECT_NEAR(f.Chosen()->Eval(1), 500 + 900 / 0.9, 30);
  Synthetic(Spec(OverheadFamily(), "const"), {450}, 16, 0.01, 4, p, y);
  f = FitFamily(OverheadFamily(), p, y);
  ASSERT_NE(f.Chosen(), nullptr);
  EXPECT_EQ(f.Chosen()->spec->name, "const");
}

TEST(FitFamily, TooFewPointsFitOnlyTheSmallMembers) {
  const std::vector<double> p = {1, 2, 3}, y = {300, 200, 170};
  const FamilyFit f = FitFamily(RttFamily(), p, y);
  ASSERT_EQ(f.fits.size(), 1u);  // logp (2 λ); pipeline needs 4 points
  EXPECT_EQ(f.fits[0].spec->name, "logp");
  EXPECT_TRUE(FitFamily(RttFamily(), {}, {}).fits.empty());
}

TEST(FitFamily, ForcedMember) {
  const ModelSpec& lop = Spec(RttFamily(), "lop");
  std::vector<double> p, y;
  Synthetic(lop, {20000, 0.5, 9000, -40, 0.08}, 32, 0.005, 2, p, y);
  const FamilyFit f =
      FitFamily(RttFamily(), p, y, Weighting::kUnit, "pipeline");
  ASSERT_NE(f.Chosen(), nullptr);
  EXPECT_EQ(f.Chosen()->spec->name, "pipeline");
}

}  // namespace
}  // namespace verbsemu::fit
