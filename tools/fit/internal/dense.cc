#include "tools/fit/internal/dense.h"

#include <cmath>
#include <utility>

namespace verbsemu::fit::internal {
namespace {

bool AllFinite(const std::vector<double>& v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

std::optional<std::vector<double>> SolveCholesky(const Matrix& a,
                                                 const std::vector<double>& b) {
  const std::size_t n = a.rows();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const double d = a(i, j) - a(j, i);
      if (std::abs(d) > 1e-12 * (std::abs(a(i, j)) + std::abs(a(j, i)) + 1)) {
        return std::nullopt;  // Not symmetric.
      }
    }
  }
  Matrix l(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    double diag = a(j, j);
    for (std::size_t k = 0; k < j; ++k) diag -= l(j, k) * l(j, k);
    if (!(diag > 1e-300) || diag < 1e-14 * std::abs(a(j, j))) {
      return std::nullopt;
    }
    l(j, j) = std::sqrt(diag);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / l(j, j);
    }
  }
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) s -= l(i, k) * y[k];
    y[i] = s / l(i, i);
  }
  std::vector<double> x(n);
  for (std::size_t ii = n; ii-- > 0;) {
    double s = y[ii];
    for (std::size_t k = ii + 1; k < n; ++k) s -= l(k, ii) * x[k];
    x[ii] = s / l(ii, ii);
  }
  if (!AllFinite(x)) return std::nullopt;
  return x;
}

std::optional<std::vector<double>> SolveGauss(Matrix a, std::vector<double> b) {
  const std::size_t n = a.rows();
  double scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      scale = std::max(scale, std::abs(a(i, j)));
  }
  if (!(scale > 0)) return std::nullopt;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r) {
      if (std::abs(a(r, col)) > std::abs(a(pivot, col))) pivot = r;
    }
    if (std::abs(a(pivot, col)) <= 1e-14 * scale) return std::nullopt;
    if (pivot != col) {
      for (std::size_t c = 0; c < n; ++c) std::swap(a(col, c), a(pivot, c));
      std::swap(b[col], b[pivot]);
    }
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a(r, col) / a(col, col);
      if (f == 0) continue;
      for (std::size_t c = col; c < n; ++c) a(r, c) -= f * a(col, c);
      b[r] -= f * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t ii = n; ii-- > 0;) {
    double s = b[ii];
    for (std::size_t c = ii + 1; c < n; ++c) s -= a(ii, c) * x[c];
    x[ii] = s / a(ii, ii);
  }
  if (!AllFinite(x)) return std::nullopt;
  return x;
}

}  // namespace

std::optional<std::vector<double>> Solve(const Matrix& a,
                                         const std::vector<double>& b) {
  if (a.rows() != a.cols() || a.rows() != b.size() || a.rows() == 0) {
    return std::nullopt;
  }
  if (auto x = SolveCholesky(a, b)) return x;
  return SolveGauss(a, b);
}

std::optional<std::vector<double>> LinearLeastSquares(
    const Matrix& basis, const std::vector<double>& y) {
  const std::size_t n = basis.rows();
  const std::size_t k = basis.cols();
  if (n < k || y.size() != n || k == 0) return std::nullopt;
  Matrix ata(k, k);
  std::vector<double> aty(k, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < k; ++a) {
      aty[a] += basis(i, a) * y[i];
      for (std::size_t b = 0; b < k; ++b) {
        ata(a, b) += basis(i, a) * basis(i, b);
      }
    }
  }
  for (std::size_t a = 0; a < k; ++a) ata(a, a) *= 1.0 + 1e-12;
  return Solve(ata, aty);
}

}  // namespace verbsemu::fit::internal
