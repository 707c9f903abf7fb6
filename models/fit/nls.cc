#include "models/fit/nls.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "stats/stats.h"

namespace verbsemu::fit {
namespace {

// GSL's default handler aborts the process; every status is checked here.
void QuietGsl() {
  static const bool done = [] {
    gsl_set_error_handler_off();
    return true;
  }();
  (void)done;
}

struct VectorFree {
  void operator()(gsl_vector* v) const { gsl_vector_free(v); }
};
struct MatrixFree {
  void operator()(gsl_matrix* m) const { gsl_matrix_free(m); }
};
struct NlinearFree {
  void operator()(gsl_multifit_nlinear_workspace* w) const {
    gsl_multifit_nlinear_free(w);
  }
};
struct LinearFree {
  void operator()(gsl_multifit_linear_workspace* w) const {
    gsl_multifit_linear_free(w);
  }
};
using Vector = std::unique_ptr<gsl_vector, VectorFree>;
using Matrix = std::unique_ptr<gsl_matrix, MatrixFree>;

// The problem as GSL's callbacks see it.
struct Problem {
  const Model& model;
  std::span<const double> x, y;
  const Bounds& bounds;
  std::vector<double> scratch;

  // Whether parameter j of v lies outside the box: the objective is flat
  // there (the model sees the projection), so is its Jacobian column.
  bool Outside(const gsl_vector* v, std::size_t j) const {
    const double p = gsl_vector_get(v, j);
    return (!bounds.lower.empty() && p < bounds.lower[j]) ||
           (!bounds.upper.empty() && p > bounds.upper[j]);
  }

  std::span<const double> Projected(const gsl_vector* v) {
    for (std::size_t j = 0; j < scratch.size(); ++j) {
      double p = gsl_vector_get(v, j);
      if (!bounds.lower.empty()) p = std::max(p, bounds.lower[j]);
      if (!bounds.upper.empty()) p = std::min(p, bounds.upper[j]);
      scratch[j] = p;
    }
    return scratch;
  }
};

int Residual(const gsl_vector* v, void* data, gsl_vector* f) {
  auto& pb = *static_cast<Problem*>(data);
  const auto params = pb.Projected(v);
  for (std::size_t i = 0; i < pb.x.size(); ++i) {
    const double r = pb.model.f(pb.x[i], params) - pb.y[i];
    if (!std::isfinite(r)) return GSL_EDOM;
    gsl_vector_set(f, i, r);
  }
  return GSL_SUCCESS;
}

int Jacobian(const gsl_vector* v, void* data, gsl_matrix* jac) {
  auto& pb = *static_cast<Problem*>(data);
  const auto params = pb.Projected(v);
  std::vector<double> grad(params.size());
  for (std::size_t i = 0; i < pb.x.size(); ++i) {
    pb.model.gradient(pb.x[i], params, grad);
    for (std::size_t j = 0; j < grad.size(); ++j) {
      if (!std::isfinite(grad[j])) return GSL_EDOM;
      gsl_matrix_set(jac, i, j, pb.Outside(v, j) ? 0.0 : grad[j]);
    }
  }
  return GSL_SUCCESS;
}

bool AtBound(const Bounds& b, std::size_t j, double v) {
  const auto near = [v](double edge) {
    return std::isfinite(edge) &&
           std::abs(v - edge) <= 1e-9 * std::max(1.0, std::abs(edge));
  };
  return (!b.lower.empty() && near(b.lower[j])) ||
         (!b.upper.empty() && near(b.upper[j]));
}

// Standard errors from GSL's (J'WJ)^-1 at the solution, scaled by the
// residual variance (the weights are relative, not known variances).
void Uncertainties(gsl_multifit_nlinear_workspace* w, FitResult& r) {
  const std::size_t k = r.params.size();
  Matrix covar(gsl_matrix_alloc(k, k));
  r.se.assign(k, kNaN);
  r.covariance.assign(k * k, 0.0);
  std::size_t unbounded = 0;
  for (std::size_t j = 0; j < k; ++j) unbounded += r.at_bound[j] ? 0 : 1;
  r.dof = static_cast<int>(r.residuals.size()) - static_cast<int>(unbounded);
  if (r.dof <= 0 || !covar) return;
  r.sigma2 = r.wssr / r.dof;
  if (gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 1e-12,
                                 covar.get()) != GSL_SUCCESS) {
    return;
  }
  for (std::size_t a = 0; a < k; ++a) {
    for (std::size_t b = 0; b < k; ++b) {
      r.covariance[a * k + b] = gsl_matrix_get(covar.get(), a, b) * r.sigma2;
    }
    const double var = r.covariance[a * k + a];
    if (var > 0 && std::isfinite(var) && !r.at_bound[a])
      r.se[a] = std::sqrt(var);
  }
}

// GSL's driver returns GSL_EMAXITER with info GSL_ENOPROG when its first
// step cannot improve: the start is the minimum (a linear model started at
// its least-squares solution).
bool Converged(int status, int info) {
  return status == GSL_SUCCESS ||
         (status == GSL_EMAXITER && info == GSL_ENOPROG);
}

std::string StopName(int status, int info) {
  if (status == GSL_EMAXITER && info == GSL_ENOPROG) return "start optimal";
  if (status != GSL_SUCCESS) return gsl_strerror(status);
  return info == 1 ? "xtol" : info == 2 ? "gtol" : "ftol";
}

Model WithGradient(const Model& m) {
  if (m.gradient) return m;
  Model out = m;
  out.gradient = [f = m.f](double x, std::span<const double> p,
                           std::span<double> g) {
    std::vector<double> q(p.begin(), p.end());
    for (std::size_t j = 0; j < q.size(); ++j) {
      const double h = 1e-6 * std::max(1.0, std::abs(p[j]));
      q[j] = p[j] + h;
      const double up = f(x, q);
      q[j] = p[j] - h;
      const double down = f(x, q);
      q[j] = p[j];
      g[j] = (up - down) / (2 * h);
    }
  };
  return out;
}

}  // namespace

bool FitResult::Identified(std::size_t j) const {
  return j < se.size() && std::isfinite(se[j]) && !at_bound[j];
}

double FitResult::HalfWidth95(std::size_t j) const {
  if (!Identified(j) || dof <= 0) return kNaN;
  return verbsemu::stats::T975(static_cast<double>(dof)) * se[j];
}

double RSquared(std::span<const double> y, std::span<const double> residuals) {
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double sst = 0, ssr = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    sst += (y[i] - mean) * (y[i] - mean);
    ssr += residuals[i] * residuals[i];
  }
  if (sst == 0) return ssr == 0 ? 1 : 0;
  return 1 - ssr / sst;
}

std::vector<double> RelativeWeights(std::span<const double> y) {
  std::vector<double> w;
  for (double v : y) {
    const double a = std::max(std::abs(v), 1e-300);
    w.push_back(1 / (a * a));
  }
  return w;
}

FitResult FitNls(const Model& model, std::span<const double> x,
                 std::span<const double> y, std::span<const double> w,
                 std::vector<double> start, const Bounds& bounds,
                 const NlsOptions& options) {
  QuietGsl();
  FitResult r;
  const std::size_t n = x.size(), k = start.size();
  if (n == 0 || y.size() != n || w.size() != n || k == 0 || n < k) return r;
  const Model m = WithGradient(model);
  Problem pb{m, x, y, bounds, std::vector<double>(k)};
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = Residual;
  fdf.df = Jacobian;
  fdf.n = n;
  fdf.p = k;
  fdf.params = &pb;
  gsl_multifit_nlinear_parameters params =
      gsl_multifit_nlinear_default_parameters();
  std::unique_ptr<gsl_multifit_nlinear_workspace, NlinearFree> ws(
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, k));
  Vector x0(gsl_vector_alloc(k)), wv(gsl_vector_alloc(n));
  if (!ws || !x0 || !wv) return r;
  for (std::size_t j = 0; j < k; ++j) gsl_vector_set(x0.get(), j, start[j]);
  for (std::size_t i = 0; i < n; ++i) gsl_vector_set(wv.get(), i, w[i]);
  if (gsl_multifit_nlinear_winit(x0.get(), wv.get(), &fdf, ws.get()) !=
      GSL_SUCCESS) {
    r.stop = "model not finite at the start";
    return r;
  }
  int info = 0;
  const int status = gsl_multifit_nlinear_driver(
      static_cast<std::size_t>(options.max_iterations), options.xtol,
      options.gtol, options.ftol, nullptr, nullptr, &info, ws.get());
  const auto best = pb.Projected(gsl_multifit_nlinear_position(ws.get()));
  r.params.assign(best.begin(), best.end());
  r.iterations = static_cast<int>(gsl_multifit_nlinear_niter(ws.get()));
  r.stop = StopName(status, info);
  r.converged = Converged(status, info);
  r.ssr = r.wssr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double res = y[i] - m.f(x[i], r.params);
    r.residuals.push_back(res);
    r.ssr += res * res;
    r.wssr += w[i] * res * res;
  }
  if (!std::isfinite(r.wssr)) return r;
  r.r2 = RSquared(y, r.residuals);
  for (std::size_t j = 0; j < k; ++j) {
    r.at_bound.push_back(AtBound(bounds, j, r.params[j]));
  }
  Uncertainties(ws.get(), r);
  return r;
}

FitResult FitMultiStart(const Model& model, std::span<const double> x,
                        std::span<const double> y, std::span<const double> w,
                        const std::vector<std::vector<double>>& starts,
                        const Bounds& bounds, const NlsOptions& options) {
  FitResult best;
  for (const auto& s : starts) {
    FitResult r = FitNls(model, x, y, w, s, bounds, options);
    if (r.ok() && (!best.ok() || r.wssr < best.wssr)) best = std::move(r);
  }
  return best;
}

std::optional<std::vector<double>> LinearLeastSquares(
    std::span<const double> basis, std::size_t k, std::span<const double> y,
    std::span<const double> w) {
  QuietGsl();
  const std::size_t n = y.size();
  if (k == 0 || n < k || basis.size() != n * k || w.size() != n) return {};
  Matrix b(gsl_matrix_alloc(n, k)), cov(gsl_matrix_alloc(k, k));
  Vector yv(gsl_vector_alloc(n)), wv(gsl_vector_alloc(n)),
      c(gsl_vector_alloc(k));
  std::unique_ptr<gsl_multifit_linear_workspace, LinearFree> ws(
      gsl_multifit_linear_alloc(n, k));
  if (!b || !cov || !yv || !wv || !c || !ws) return {};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      gsl_matrix_set(b.get(), i, j, basis[i * k + j]);
    }
    gsl_vector_set(yv.get(), i, y[i]);
    gsl_vector_set(wv.get(), i, w[i]);
  }
  double chisq = 0;
  std::size_t rank = 0;
  if (gsl_multifit_wlinear_tsvd(b.get(), wv.get(), yv.get(), 1e-12, c.get(),
                                cov.get(), &chisq, &rank,
                                ws.get()) != GSL_SUCCESS ||
      rank < k) {
    return {};
  }
  std::vector<double> out(k);
  for (std::size_t j = 0; j < k; ++j) out[j] = gsl_vector_get(c.get(), j);
  return out;
}

double Aicc(double wssr, std::size_t n, std::size_t k) {
  if (n <= k + 1 || !(wssr > 0)) return kNaN;
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  return nd * std::log(wssr / nd) + 2 * kd + 2 * kd * (kd + 1) / (nd - kd - 1);
}

FTest NestedFTest(double wssr_small, std::size_t k_small, double wssr_big,
                  std::size_t k_big, std::size_t n) {
  FTest t;
  if (k_big <= k_small || n <= k_big || !(wssr_big > 0)) return t;
  const double d1 = static_cast<double>(k_big - k_small);
  const double d2 = static_cast<double>(n - k_big);
  t.f = std::max(0.0, (wssr_small - wssr_big) / d1) / (wssr_big / d2);
  t.p_value = gsl_cdf_fdist_Q(t.f, d1, d2);
  return t;
}

}  // namespace verbsemu::fit
