#include "models/lop/lop_models.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace verbsemu::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double MinOf(std::span<const double> v) {
  return *std::min_element(v.begin(), v.end());
}
double MaxOf(std::span<const double> v) {
  return *std::max_element(v.begin(), v.end());
}
double Range(std::span<const double> p) {
  return std::max(MaxOf(p) - MinOf(p), 1.0);
}
// The pole -l2 (-l3) stays this far left of the smallest p.
double PoleLower(std::span<const double> p) {
  return -MinOf(p) + 1e-3 * std::max(std::abs(MinOf(p)), 1.0);
}
double PoleUpper(std::span<const double> p) {
  return 1e6 * (Range(p) + std::abs(MinOf(p)));
}
// Offsets of the pole from the smallest p tried for the starting grid.
constexpr double kPoleOffsets[] = {0.05, 0.2, 0.5, 1, 2, 5, 10, 30, 100};

// Starting points: the nonlinear parameters from a grid, the linear ones
// by weighted least squares on the basis `row(p, nonlinear)`.
template <class Row, class Assemble>
void GridStarts(std::span<const double> p, std::span<const double> y,
                std::span<const double> w, std::size_t k, double nonlinear,
                Row row, Assemble assemble,
                std::vector<std::vector<double>>& out) {
  std::vector<double> basis;
  for (double x : p) {
    const std::vector<double> r = row(x, nonlinear);
    basis.insert(basis.end(), r.begin(), r.end());
  }
  if (auto c = LinearLeastSquares(basis, k, y, w)) {
    out.push_back(assemble(*c));
  }
}

// ---- t_rtt ----------------------------------------------------------------

double RttLogP(double p, std::span<const double> l) { return l[0] + l[1] / p; }
double RttPipeline(double p, std::span<const double> l) {
  return l[0] / (l[1] + p) + l[2];
}
double RttLop(double p, std::span<const double> l) {
  return l[0] / (l[1] + p) + l[2] + l[3] * std::exp(l[4] * p);
}

void RttLogPGrad(double p, std::span<const double>, std::span<double> g) {
  g[0] = 1;
  g[1] = 1 / p;
}
void RttPipelineGrad(double p, std::span<const double> l, std::span<double> g) {
  const double d = l[1] + p;
  g[0] = 1 / d;
  g[1] = -l[0] / (d * d);
  g[2] = 1;
}
void RttLopGrad(double p, std::span<const double> l, std::span<double> g) {
  RttPipelineGrad(p, l, g);
  const double e = std::exp(l[4] * p);
  g[3] = e;
  g[4] = l[3] * p * e;
}

Bounds NoBounds(std::span<const double>) { return {}; }
Bounds PipelineBounds(std::span<const double> p) {
  return {{-kInf, PoleLower(p), -kInf}, {kInf, PoleUpper(p), kInf}};
}
Bounds LopBounds(std::span<const double> p) {
  // e^{l5 p} spans at most e^50 over the data.
  const double rate = 50 / std::max(MaxOf(p), 1.0);
  return {{-kInf, PoleLower(p), -kInf, -kInf, -rate},
          {kInf, PoleUpper(p), kInf, kInf, rate}};
}

std::vector<std::vector<double>> LogPStarts(std::span<const double> p,
                                            std::span<const double> y,
                                            std::span<const double> w) {
  std::vector<std::vector<double>> out;
  GridStarts(
      p, y, w, 2, 0,
      [](double x, double) {
        return std::vector<double>{1, 1 / x};
      },
      [](const std::vector<double>& c) { return c; }, out);
  return out;
}

std::vector<std::vector<double>> PipelineStarts(std::span<const double> p,
                                                std::span<const double> y,
                                                std::span<const double> w) {
  std::vector<std::vector<double>> out;
  for (double off : kPoleOffsets) {
    const double l2 = -MinOf(p) + off;
    GridStarts(
        p, y, w, 2, l2,
        [](double x, double a) {
          return std::vector<double>{1 / (a + x), 1};
        },
        [l2](const std::vector<double>& c) {
          return std::vector<double>{c[0], l2, c[1]};
        },
        out);
  }
  return out;
}

std::vector<std::vector<double>> LopStarts(std::span<const double> p,
                                           std::span<const double> y,
                                           std::span<const double> w) {
  std::vector<std::vector<double>> out;
  const double range = Range(p);
  for (double off : kPoleOffsets) {
    const double l2 = -MinOf(p) + off;
    for (double rate : {-6.0, -2.0, -0.5, 0.5, 2.0, 6.0}) {
      const double l5 = rate / range;
      GridStarts(
          p, y, w, 3, l2,
          [l5](double x, double a) {
            return std::vector<double>{1 / (a + x), 1, std::exp(l5 * x)};
          },
          [l2, l5](const std::vector<double>& c) {
            return std::vector<double>{c[0], l2, c[1], c[2], l5};
          },
          out);
    }
  }
  return out;
}

// ---- t_ov -----------------------------------------------------------------

double OvConst(double, std::span<const double> l) { return l[0]; }
double OvLop(double p, std::span<const double> l) {
  return l[0] + l[1] / (l[2] + p);
}
void OvConstGrad(double, std::span<const double>, std::span<double> g) {
  g[0] = 1;
}
void OvLopGrad(double p, std::span<const double> l, std::span<double> g) {
  const double d = l[2] + p;
  g[0] = 1;
  g[1] = 1 / d;
  g[2] = -l[1] / (d * d);
}
Bounds OvLopBounds(std::span<const double> p) {
  return {{-kInf, -kInf, PoleLower(p)}, {kInf, kInf, PoleUpper(p)}};
}

std::vector<std::vector<double>> ConstStarts(std::span<const double> p,
                                             std::span<const double> y,
                                             std::span<const double> w) {
  std::vector<std::vector<double>> out;
  GridStarts(
      p, y, w, 1, 0, [](double, double) { return std::vector<double>{1}; },
      [](const std::vector<double>& c) { return c; }, out);
  return out;
}

std::vector<std::vector<double>> OvLopStarts(std::span<const double> p,
                                             std::span<const double> y,
                                             std::span<const double> w) {
  std::vector<std::vector<double>> out;
  for (double off : kPoleOffsets) {
    const double l3 = -MinOf(p) + off;
    GridStarts(
        p, y, w, 2, l3,
        [](double x, double a) {
          return std::vector<double>{1, 1 / (a + x)};
        },
        [l3](const std::vector<double>& c) {
          return std::vector<double>{c[0], c[1], l3};
        },
        out);
  }
  return out;
}

}  // namespace

const std::vector<ModelSpec>& RttFamily() {
  static const std::vector<ModelSpec> family = {
      {"logp",
       "g + c/p",
       {"g", "c"},
       {RttLogP, RttLogPGrad},
       NoBounds,
       LogPStarts},
      {"pipeline",
       "l1/(l2+p) + c",
       {"l1", "l2", "c"},
       {RttPipeline, RttPipelineGrad},
       PipelineBounds,
       PipelineStarts},
      {"lop",
       "l1/(l2+p) + c + d*exp(l5*p)",
       {"l1", "l2", "c", "d", "l5"},
       {RttLop, RttLopGrad},
       LopBounds,
       LopStarts},
  };
  return family;
}

const std::vector<ModelSpec>& OverheadFamily() {
  static const std::vector<ModelSpec> family = {
      {"const", "o", {"o"}, {OvConst, OvConstGrad}, NoBounds, ConstStarts},
      {"lop",
       "l1 + l2/(l3+p)",
       {"l1", "l2", "l3"},
       {OvLop, OvLopGrad},
       OvLopBounds,
       OvLopStarts},
  };
  return family;
}

namespace {

// Relative weights 1/f(p)², f the family's largest member that the points
// allow, fitted with 1/y² first: weighting by the observations themselves
// (1/y²) would let one low outlier pull a curve down by its own large
// weight. Every member is then fitted with the same weights, so their AICc
// and F-tests compare like with like.
std::vector<double> ModelRelativeWeights(const std::vector<ModelSpec>& family,
                                         std::span<const double> p,
                                         std::span<const double> y) {
  std::vector<double> w0 = RelativeWeights(y);
  for (auto it = family.rbegin(); it != family.rend(); ++it) {
    if (p.size() <= it->params.size()) continue;
    const FitResult r =
        FitMultiStart(it->model, p, y, w0, it->starts(p, y, w0), it->bounds(p));
    if (!r.ok()) continue;
    std::vector<double> f;
    for (double x : p) f.push_back(it->model.f(x, r.params));
    if (std::all_of(f.begin(), f.end(), [](double v) { return v > 0; })) {
      return RelativeWeights(f);
    }
  }
  return w0;
}

}  // namespace

double ModelFit::Eval(double p) const {
  if (!spec || !fit.ok()) return kNaN;
  return spec->model.f(p, fit.params);
}

FamilyFit FitFamily(const std::vector<ModelSpec>& family,
                    std::span<const double> p, std::span<const double> y,
                    Weighting weighting, const std::string& force) {
  FamilyFit out;
  if (p.empty() || p.size() != y.size()) return out;
  const std::vector<double> w = weighting == Weighting::kRelative
                                    ? ModelRelativeWeights(family, p, y)
                                    : std::vector<double>(y.size(), 1.0);
  for (const ModelSpec& spec : family) {
    if (p.size() <= spec.params.size()) break;  // no degree of freedom left
    ModelFit mf;
    mf.spec = &spec;
    mf.fit = FitMultiStart(spec.model, p, y, w, spec.starts(p, y, w),
                           spec.bounds(p));
    if (!mf.fit.ok()) continue;
    mf.aicc = Aicc(mf.fit.wssr, p.size(), spec.params.size());
    if (const ModelFit* base = out.LogP()) {
      mf.vs_logp = NestedFTest(base->fit.wssr, base->spec->params.size(),
                               mf.fit.wssr, spec.params.size(), p.size());
    }
    out.logp = out.logp || &spec == &family.front();
    out.fits.push_back(std::move(mf));
  }
  for (std::size_t i = 0; i < out.fits.size(); ++i) {
    const ModelFit& f = out.fits[i];
    const bool better =
        force.empty()
            ? out.chosen < 0 ||
                  (std::isfinite(f.aicc) && !(f.aicc >= out.Chosen()->aicc))
            : f.spec->name == force;  // a NaN AICc never wins over a number
    if (better) out.chosen = static_cast<int>(i);
  }
  return out;
}

}  // namespace verbsemu::fit
