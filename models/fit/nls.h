// Weighted nonlinear least squares for small curve fits y_i ~ f(x_i; λ),
// on GSL's trust-region Levenberg-Marquardt (gsl_multifit_nlinear), with
// the parameters' covariance, standard errors and 95% intervals, and the
// model-comparison statistics (AICc, nested F-test) the LoP fits report.
// GSL replaced our own solver: the same fits, fewer lines to keep, and a
// covariance we did not have (docs/fitting.md).
#ifndef VERBSEMU_MODELS_FIT_NLS_H_
#define VERBSEMU_MODELS_FIT_NLS_H_

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace verbsemu::fit {

// f(x; params).
using ModelFn = std::function<double(double x, std::span<const double> params)>;
// Writes df/dparams_j at x into grad (size == params.size()).
using GradientFn = std::function<void(double x, std::span<const double> params,
                                      std::span<double> grad)>;

struct Model {
  ModelFn f;
  GradientFn gradient;  // Optional; central differences if empty.
};

struct Bounds {
  // Empty vectors mean unbounded; otherwise one entry per parameter (use
  // +/-infinity for a free side). The solver evaluates the model at the
  // parameters projected into the box.
  std::vector<double> lower;
  std::vector<double> upper;
};

struct NlsOptions {
  int max_iterations = 400;
  double xtol = 1e-10;  // GSL's test on the step
  double gtol = 1e-10;  // on the gradient
  double ftol = 1e-12;  // on the residual norm
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct FitResult {
  std::vector<double> params;
  std::vector<double> residuals;                         // y_i - f(x_i; params)
  double ssr = std::numeric_limits<double>::infinity();  // Σ r²
  double wssr = std::numeric_limits<double>::infinity();  // Σ w r²
  double r2 = 0;                                          // 1 - SSR/SST
  int dof = 0;             // points - identified parameters
  double sigma2 = kNaN;    // wssr / dof: the residual variance (weighted)
  std::vector<double> se;  // standard errors; NaN: not identified
  // (J'WJ)^-1 σ², row-major k×k; zero rows for parameters not identified.
  std::vector<double> covariance;
  std::vector<bool> at_bound;
  int iterations = 0;
  std::string stop = "bad input";  // why the solver stopped
  bool converged = false;
  bool ok() const { return !params.empty() && std::isfinite(wssr); }
  // Whether parameter j has a finite standard error and is not at a bound.
  bool Identified(std::size_t j) const;
  // 95% interval from Student's t with dof degrees of freedom.
  double HalfWidth95(std::size_t j) const;
};

// 1 - SSR/SST; 1 if the data are constant and fitted exactly.
double RSquared(std::span<const double> y, std::span<const double> residuals);

// Relative weighting: w_i = 1/y_i² (fits relative deviations, so a curve
// spanning decades is not fitted at its largest values only).
std::vector<double> RelativeWeights(std::span<const double> y);

// Minimises Σ w_i (y_i - f(x_i; λ))² from `start` (projected into the
// bounds). x, y, w have equal, non-zero size.
FitResult FitNls(const Model& model, std::span<const double> x,
                 std::span<const double> y, std::span<const double> w,
                 std::vector<double> start, const Bounds& bounds = {},
                 const NlsOptions& options = {});

// FitNls from every start; the lowest weighted SSR wins (ties: the first).
FitResult FitMultiStart(const Model& model, std::span<const double> x,
                        std::span<const double> y, std::span<const double> w,
                        const std::vector<std::vector<double>>& starts,
                        const Bounds& bounds = {},
                        const NlsOptions& options = {});

// Weighted linear least squares min Σ w_i (Σ_j B_ij c_j - y_i)², B given
// row-major n×k; nullopt if B is rank deficient.
std::optional<std::vector<double>> LinearLeastSquares(
    std::span<const double> basis, std::size_t k, std::span<const double> y,
    std::span<const double> w);

// Akaike's criterion with the small-sample correction, for a Gaussian
// likelihood of the weighted residuals: n ln(wssr/n) + 2k + 2k(k+1)/(n-k-1).
// NaN when n <= k + 1.
double Aicc(double wssr, std::size_t n, std::size_t k);

struct FTest {
  double f = kNaN;
  double p_value = kNaN;  // P(F' > f) under the smaller model
};
// The nested-model F-test of a model with k_small parameters inside one
// with k_big, both fitted to the same n points.
FTest NestedFTest(double wssr_small, std::size_t k_small, double wssr_big,
                  std::size_t k_big, std::size_t n);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_FIT_NLS_H_
