// Levenberg-Marquardt nonlinear least squares for small curve fits
// y_i ~ f(x_i; params). Damped Gauss-Newton with Marquardt (diagonal)
// scaling, Nielsen's damping update, box bounds by projection, analytic or
// central-difference Jacobian, and a multi-start driver. No external math
// library: the normal equations are solved by //tools/fit/internal:dense.
#ifndef VERBSEMU_TOOLS_FIT_LM_H_
#define VERBSEMU_TOOLS_FIT_LM_H_

#include <functional>
#include <limits>
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
  // +/-infinity for a free side).
  std::vector<double> lower;
  std::vector<double> upper;
};

struct LmOptions {
  int max_iterations = 400;
  // Stop when the relative decrease of the sum of squares in an accepted
  // step falls below ftol.
  double ftol = 1e-12;
  // Stop when ||step|| <= xtol * (||params|| + xtol).
  double xtol = 1e-12;
  // Stop when the scaled gradient max-norm falls below gtol.
  double gtol = 1e-12;
  // Initial damping, relative to max diag(J^T J).
  double initial_damping = 1e-3;
  // Give up when the damping grows beyond this (no downhill step exists).
  double max_damping = 1e16;
};

enum class StopReason {
  kFtol,
  kXtol,
  kGtol,
  kMaxIterations,
  kNoProgress,
  kBadInput,
};

const char* StopReasonName(StopReason reason);

struct FitResult {
  std::vector<double> params;
  std::vector<double> residuals;  // y_i - f(x_i; params).
  double ssr = std::numeric_limits<double>::infinity();  // Sum of squares.
  double r2 = 0.0;  // Coefficient of determination 1 - SSR/SST.
  int iterations = 0;
  StopReason reason = StopReason::kBadInput;
  // True if a convergence criterion (ftol/xtol/gtol) was met.
  bool converged() const {
    return reason == StopReason::kFtol || reason == StopReason::kXtol ||
           reason == StopReason::kGtol;
  }
};

// 1 - SSR/SST; 1 if the data are constant and fitted exactly, 0 if constant
// and not fitted exactly.
double RSquared(std::span<const double> y, std::span<const double> residuals);

// Residuals y_i - f(x_i; params).
std::vector<double> Residuals(const Model& model, std::span<const double> x,
                              std::span<const double> y,
                              std::span<const double> params);

// Minimises sum_i (y_i - f(x_i; p))^2 from `start`. `start` is projected into
// the bounds first. x and y must have equal, non-zero size.
FitResult LevenbergMarquardt(const Model& model, std::span<const double> x,
                             std::span<const double> y,
                             std::vector<double> start,
                             const Bounds& bounds = {},
                             const LmOptions& options = {});

// Runs LevenbergMarquardt from every start and returns the result with the
// smallest sum of squares (ties: the first). Non-finite results are skipped.
FitResult FitMultiStart(const Model& model, std::span<const double> x,
                        std::span<const double> y,
                        const std::vector<std::vector<double>>& starts,
                        const Bounds& bounds = {},
                        const LmOptions& options = {});

}  // namespace verbsemu::fit

#endif  // VERBSEMU_TOOLS_FIT_LM_H_
