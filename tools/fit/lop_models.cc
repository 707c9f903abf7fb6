#include "tools/fit/lop_models.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tools/fit/internal/dense.h"

namespace verbsemu::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Candidate {
  double ssr;
  std::vector<double> params;
};

double MinOf(std::span<const double> v) {
  return *std::min_element(v.begin(), v.end());
}
double MaxOf(std::span<const double> v) {
  return *std::max_element(v.begin(), v.end());
}
double Range(std::span<const double> p) {
  return std::max(MaxOf(p) - MinOf(p), 1.0);
}
// Smallest allowed distance of the pole l_k = -p from the smallest p.
double PoleMargin(std::span<const double> p) {
  return 1e-3 * std::max(std::abs(MinOf(p)), 1.0);
}

double Ssr(const ModelFn& f, std::span<const double> x,
           std::span<const double> y, std::span<const double> params) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - f(x[i], params);
    s += r * r;
  }
  return s;
}

std::vector<std::vector<double>> Best(std::vector<Candidate> c,
                                      std::size_t max_starts) {
  std::stable_sort(
      c.begin(), c.end(),
      [](const Candidate& a, const Candidate& b) { return a.ssr < b.ssr; });
  std::vector<std::vector<double>> out;
  for (auto& cand : c) {
    if (out.size() >= max_starts) break;
    out.push_back(std::move(cand.params));
  }
  return out;
}

// Offsets of the pole from the smallest p tried for the starting grid.
constexpr double kPoleOffsets[] = {0.05, 0.2, 0.5, 1, 2, 5, 10, 30, 100};

}  // namespace

double RttModel(double p, std::span<const double> l) {
  return l[0] / (l[1] + p) + l[2] + l[3] * (1 - std::exp(l[4] * (p - l[5])));
}

double OverheadModel(double p, std::span<const double> l) {
  return l[0] + l[1] / (l[2] + p);
}

Model MakeRttModel() {
  Model m;
  m.f = RttModel;
  m.gradient = [](double p, std::span<const double> l, std::span<double> g) {
    const double d = l[1] + p;
    const double e = std::exp(l[4] * (p - l[5]));
    g[0] = 1 / d;
    g[1] = -l[0] / (d * d);
    g[2] = 1;
    g[3] = 1 - e;
    g[4] = -l[3] * e * (p - l[5]);
    g[5] = l[3] * e * l[4];
  };
  return m;
}

Model MakeOverheadModel() {
  Model m;
  m.f = OverheadModel;
  m.gradient = [](double p, std::span<const double> l, std::span<double> g) {
    const double d = l[2] + p;
    g[0] = 1;
    g[1] = 1 / d;
    g[2] = -l[1] / (d * d);
  };
  return m;
}

Bounds RttBounds(std::span<const double> p) {
  const double pmin = MinOf(p);
  const double range = Range(p);
  const double rate = 50 / range;  // exp() spans at most e^50 over the data.
  Bounds b;
  b.lower = {-kInf, -pmin + PoleMargin(p), -kInf, -kInf,
             -rate, pmin - 100 * range};
  b.upper = {kInf, 1e6 * (range + std::abs(pmin)), kInf, kInf,
             rate, MaxOf(p) + 100 * range};
  return b;
}

Bounds OverheadBounds(std::span<const double> p) {
  const double pmin = MinOf(p);
  const double range = Range(p);
  Bounds b;
  b.lower = {-kInf, -kInf, -pmin + PoleMargin(p)};
  b.upper = {kInf, kInf, 1e6 * (range + std::abs(pmin))};
  return b;
}

std::vector<std::vector<double>> RttStarts(std::span<const double> p,
                                           std::span<const double> y,
                                           std::size_t max_starts) {
  const std::size_t n = p.size();
  std::vector<Candidate> cands;
  if (n < kRttParams || y.size() != n) return {};
  const double pmin = MinOf(p);
  const double pmax = MaxOf(p);
  const double range = Range(p);
  const double l6 = pmax;  // l4 absorbs any shift of l6 (l4*e^{-l5*l6}).
  const double rates[] = {-6, -2, -0.5, 0.5, 2, 6};
  for (double off : kPoleOffsets) {
    const double l2 = -pmin + off;
    for (double r : rates) {
      const double l5 = r / range;
      // y ~ l1 * 1/(l2+p) + l3 * 1 + l4 * (1 - e^{l5 (p - l6)}).
      internal::Matrix basis(n, 3);
      for (std::size_t i = 0; i < n; ++i) {
        basis(i, 0) = 1 / (l2 + p[i]);
        basis(i, 1) = 1;
        basis(i, 2) = 1 - std::exp(l5 * (p[i] - l6));
      }
      auto c = internal::LinearLeastSquares(basis, {y.begin(), y.end()});
      if (!c) continue;
      std::vector<double> params = {(*c)[0], l2, (*c)[1], (*c)[2], l5, l6};
      const double s = Ssr(RttModel, p, y, params);
      if (std::isfinite(s)) cands.push_back({s, std::move(params)});
    }
  }
  // A start without saturation term: pipeline + constant only.
  for (double off : {0.5, 2.0}) {
    const double l2 = -pmin + off;
    internal::Matrix basis(n, 2);
    for (std::size_t i = 0; i < n; ++i) {
      basis(i, 0) = 1 / (l2 + p[i]);
      basis(i, 1) = 1;
    }
    auto c = internal::LinearLeastSquares(basis, {y.begin(), y.end()});
    if (!c) continue;
    std::vector<double> params = {(*c)[0], l2, (*c)[1], 0, 1 / range, l6};
    const double s = Ssr(RttModel, p, y, params);
    if (std::isfinite(s)) cands.push_back({s, std::move(params)});
  }
  return Best(std::move(cands), max_starts);
}

std::vector<std::vector<double>> OverheadStarts(std::span<const double> p,
                                                std::span<const double> y,
                                                std::size_t max_starts) {
  const std::size_t n = p.size();
  std::vector<Candidate> cands;
  if (n < kOverheadParams || y.size() != n) return {};
  const double pmin = MinOf(p);
  for (double off : kPoleOffsets) {
    const double l3 = -pmin + off;
    internal::Matrix basis(n, 2);
    for (std::size_t i = 0; i < n; ++i) {
      basis(i, 0) = 1;
      basis(i, 1) = 1 / (l3 + p[i]);
    }
    auto c = internal::LinearLeastSquares(basis, {y.begin(), y.end()});
    if (!c) continue;
    std::vector<double> params = {(*c)[0], (*c)[1], l3};
    const double s = Ssr(OverheadModel, p, y, params);
    if (std::isfinite(s)) cands.push_back({s, std::move(params)});
  }
  return Best(std::move(cands), max_starts);
}

FitResult FitRtt(std::span<const double> p, std::span<const double> y,
                 const LmOptions& options) {
  if (p.size() < kRttParams || p.size() != y.size()) return {};
  return FitMultiStart(MakeRttModel(), p, y, RttStarts(p, y), RttBounds(p),
                       options);
}

FitResult FitOverhead(std::span<const double> p, std::span<const double> y,
                      const LmOptions& options) {
  if (p.size() < kOverheadParams || p.size() != y.size()) return {};
  return FitMultiStart(MakeOverheadModel(), p, y, OverheadStarts(p, y),
                       OverheadBounds(p), options);
}

}  // namespace verbsemu::fit
