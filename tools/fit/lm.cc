#include "tools/fit/lm.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tools/fit/internal/dense.h"

namespace verbsemu::fit {
namespace {

using internal::Matrix;

double SumSquares(std::span<const double> r) {
  double s = 0;
  for (double v : r) s += v * v;
  return s;
}

bool AllFinite(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(),
                     [](double d) { return std::isfinite(d); });
}

void Project(std::vector<double>& p, const Bounds& b) {
  for (std::size_t j = 0; j < p.size(); ++j) {
    if (j < b.lower.size()) p[j] = std::max(p[j], b.lower[j]);
    if (j < b.upper.size()) p[j] = std::min(p[j], b.upper[j]);
  }
}

// J_ij = d f(x_i) / d p_j (of the model, not of the residual).
bool Jacobian(const Model& model, std::span<const double> x,
              const std::vector<double>& p, const Bounds& bounds, Matrix& jac) {
  const std::size_t n = x.size();
  const std::size_t k = p.size();
  std::vector<double> grad(k);
  if (model.gradient) {
    for (std::size_t i = 0; i < n; ++i) {
      model.gradient(x[i], p, grad);
      for (std::size_t j = 0; j < k; ++j) jac(i, j) = grad[j];
    }
  } else {
    std::vector<double> q = p;
    for (std::size_t j = 0; j < k; ++j) {
      const double h = 1e-6 * std::max(std::abs(p[j]), 1e-3);
      double up = p[j] + h;
      double down = p[j] - h;
      // Stay inside the bounds: one-sided steps at a bound.
      if (j < bounds.upper.size() && up > bounds.upper[j]) up = p[j];
      if (j < bounds.lower.size() && down < bounds.lower[j]) down = p[j];
      if (up == down) return false;
      for (std::size_t i = 0; i < n; ++i) {
        q[j] = up;
        const double fu = model.f(x[i], q);
        q[j] = down;
        const double fd = model.f(x[i], q);
        jac(i, j) = (fu - fd) / (up - down);
      }
      q[j] = p[j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      if (!std::isfinite(jac(i, j))) return false;
    }
  }
  return true;
}

double Norm(std::span<const double> v) { return std::sqrt(SumSquares(v)); }

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kFtol:
      return "ftol";
    case StopReason::kXtol:
      return "xtol";
    case StopReason::kGtol:
      return "gtol";
    case StopReason::kMaxIterations:
      return "max_iterations";
    case StopReason::kNoProgress:
      return "no_progress";
    case StopReason::kBadInput:
      return "bad_input";
  }
  return "unknown";
}

double RSquared(std::span<const double> y, std::span<const double> residuals) {
  if (y.empty()) return 0.0;
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double sst = 0;
  for (double v : y) sst += (v - mean) * (v - mean);
  const double ssr = SumSquares(residuals);
  if (sst <= 0) return ssr <= 0 ? 1.0 : 0.0;
  return 1.0 - ssr / sst;
}

std::vector<double> Residuals(const Model& model, std::span<const double> x,
                              std::span<const double> y,
                              std::span<const double> params) {
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    r[i] = y[i] - model.f(x[i], params);
  }
  return r;
}

FitResult LevenbergMarquardt(const Model& model, std::span<const double> x,
                             std::span<const double> y,
                             std::vector<double> start, const Bounds& bounds,
                             const LmOptions& options) {
  FitResult result;
  result.params = start;
  const std::size_t n = x.size();
  const std::size_t k = start.size();
  if (n == 0 || n != y.size() || k == 0 || !model.f || !AllFinite(x) ||
      !AllFinite(y)) {
    return result;
  }
  Project(start, bounds);
  std::vector<double> p = std::move(start);
  std::vector<double> r = Residuals(model, x, y, p);
  double ssr = SumSquares(r);
  result.params = p;
  result.residuals = r;
  if (!std::isfinite(ssr)) return result;  // kBadInput.

  Matrix jac(n, k);
  Matrix jtj(k, k);
  std::vector<double> jtr(k);
  double mu = -1;  // Set from diag(J^T J) on the first iteration.
  double nu = 2;
  bool need_jacobian = true;
  StopReason reason = StopReason::kMaxIterations;
  int it = 0;
  for (; it < options.max_iterations; ++it) {
    if (need_jacobian) {
      if (!Jacobian(model, x, p, bounds, jac)) {
        reason = StopReason::kNoProgress;
        break;
      }
      for (std::size_t a = 0; a < k; ++a) {
        jtr[a] = 0;
        for (std::size_t i = 0; i < n; ++i) jtr[a] += jac(i, a) * r[i];
        for (std::size_t b = 0; b <= a; ++b) {
          double s = 0;
          for (std::size_t i = 0; i < n; ++i) s += jac(i, a) * jac(i, b);
          jtj(a, b) = s;
          jtj(b, a) = s;
        }
      }
      // Scaled gradient test: |g_j| / sqrt(diag_j * ssr).
      double gmax = 0;
      for (std::size_t a = 0; a < k; ++a) {
        const double d =
            std::sqrt(std::max(jtj(a, a), 1e-300) * std::max(ssr, 1e-300));
        gmax = std::max(gmax, std::abs(jtr[a]) / d);
      }
      if (gmax <= options.gtol || ssr == 0) {
        reason = StopReason::kGtol;
        break;
      }
      if (mu < 0) {
        double dmax = 0;
        for (std::size_t a = 0; a < k; ++a) dmax = std::max(dmax, jtj(a, a));
        mu = options.initial_damping * std::max(dmax, 1e-300);
      }
      need_jacobian = false;
    }
    // Marquardt scaling: damp with diag(J^T J), floored so that parameters
    // the data do not constrain still get a bounded step.
    double dmax = 0;
    for (std::size_t a = 0; a < k; ++a) dmax = std::max(dmax, jtj(a, a));
    Matrix lhs = jtj;
    for (std::size_t a = 0; a < k; ++a) {
      const double d = std::max(jtj(a, a), 1e-12 * dmax + 1e-300);
      lhs(a, a) += mu * d / std::max(dmax, 1e-300);
    }
    auto step = internal::Solve(lhs, jtr);
    bool accepted = false;
    if (step) {
      std::vector<double> q(k);
      for (std::size_t a = 0; a < k; ++a) q[a] = p[a] + (*step)[a];
      Project(q, bounds);
      std::vector<double> dq(k);
      for (std::size_t a = 0; a < k; ++a) dq[a] = q[a] - p[a];
      const double dnorm = Norm(dq);
      if (dnorm <= options.xtol * (Norm(p) + options.xtol)) {
        reason = StopReason::kXtol;
        break;
      }
      std::vector<double> rq = Residuals(model, x, y, q);
      const double ssr_q = SumSquares(rq);
      if (std::isfinite(ssr_q) && ssr_q < ssr) {
        // Gain ratio against the linear model's predicted decrease.
        // predicted = 2 dq.(J^T r) - dq^T (J^T J) dq.
        double pred = 0;
        for (std::size_t a = 0; a < k; ++a) {
          pred += 2 * dq[a] * jtr[a];
          for (std::size_t b = 0; b < k; ++b) pred -= dq[a] * jtj(a, b) * dq[b];
        }
        const double rho = pred > 0 ? (ssr - ssr_q) / pred : 1.0;
        const double rel = (ssr - ssr_q) / ssr;
        p = std::move(q);
        r = std::move(rq);
        ssr = ssr_q;
        accepted = true;
        need_jacobian = true;
        const double t = 2 * rho - 1;
        mu *= std::max(1.0 / 3.0, 1 - t * t * t);
        nu = 2;
        if (rel <= options.ftol) {
          reason = StopReason::kFtol;
          ++it;
          break;
        }
      }
    }
    if (!accepted) {
      mu *= nu;
      nu *= 2;
      if (mu > options.max_damping * std::max(dmax, 1e-300)) {
        reason = StopReason::kNoProgress;
        break;
      }
    }
  }
  result.params = std::move(p);
  result.residuals = std::move(r);
  result.ssr = ssr;
  result.r2 = RSquared(y, result.residuals);
  result.iterations = it;
  result.reason = reason;
  return result;
}

FitResult FitMultiStart(const Model& model, std::span<const double> x,
                        std::span<const double> y,
                        const std::vector<std::vector<double>>& starts,
                        const Bounds& bounds, const LmOptions& options) {
  FitResult best;
  bool have = false;
  for (const auto& s : starts) {
    FitResult r = LevenbergMarquardt(model, x, y, s, bounds, options);
    if (!std::isfinite(r.ssr) || !AllFinite(r.params)) continue;
    if (!have || r.ssr < best.ssr) {
      best = std::move(r);
      have = true;
    }
  }
  return best;
}

}  // namespace verbsemu::fit
