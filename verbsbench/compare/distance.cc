#include "verbsbench/compare/distance.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "verbsbench/histogram.h"

namespace verbsbench::compare {
namespace {

// Index of `value`, which is one of the edges.
size_t EdgeIndex(const std::vector<double>& edges, double value) {
  return static_cast<size_t>(
      std::lower_bound(edges.begin(), edges.end(), value) - edges.begin());
}

// Spreads each bin's share of the run uniformly over the shared intervals
// it covers (its edges are shared edges, and bins do not overlap, so every
// interval is visited once).
std::vector<double> Spread(const std::vector<Bin>& bins,
                           const std::vector<double>& edges) {
  double total = 0;
  for (const Bin& b : bins) total += b.count;
  std::vector<double> mass(edges.size() - 1, 0.0);
  for (const Bin& b : bins) {
    const double share = b.count / total;
    const size_t end = EdgeIndex(edges, b.hi);
    for (size_t j = EdgeIndex(edges, b.lo); j < end; ++j) {
      mass[j] += share * ((edges[j + 1] - edges[j]) / (b.hi - b.lo));
    }
  }
  return mass;
}

// Kolmogorov's Q(lambda) = P(K > lambda), each of the two series where it
// converges fast (Numerical Recipes, 3rd ed., §6.14).
double KolmogorovQ(double lambda) {
  if (lambda <= 0) return 1.0;
  if (lambda < 1.18) {
    const double y =
        std::exp(-std::numbers::pi * std::numbers::pi / (8 * lambda * lambda));
    double sum = 0;
    for (int j = 1; j <= 7; j += 2) sum += std::pow(y, j * j);
    return std::clamp(1.0 - std::sqrt(2 * std::numbers::pi) / lambda * sum, 0.0,
                      1.0);
  }
  const double x = std::exp(-2 * lambda * lambda);
  double sum = 0;
  for (int j = 1; j <= 4; ++j) {
    sum += (j % 2 ? 1.0 : -1.0) * std::pow(x, j * j);
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

}  // namespace

const char* BinsProblem(const std::vector<Bin>& bins) {
  double total = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const Bin& b = bins[i];
    if (!std::isfinite(b.lo) || !std::isfinite(b.hi) ||
        !std::isfinite(b.hi - b.lo) || !std::isfinite(b.count)) {
      return "a bin edge or count is not a finite number";
    }
    if (!(b.hi > b.lo)) return "a bin's hi_ns is not above its lo_ns";
    if (b.count < 0) return "a bin has a negative count";
    if (i > 0 && b.lo < bins[i - 1].hi) {
      return "bins out of order or overlapping";
    }
    total += b.count;
  }
  if (!(total > 0) || !std::isfinite(total)) return "no samples in its bins";
  return nullptr;
}

SharedBins Rebin(const std::vector<Bin>& a, const std::vector<Bin>& b) {
  for (const auto* bins : {&a, &b}) {
    if (const char* problem = BinsProblem(*bins)) {
      throw std::invalid_argument(problem);
    }
  }
  SharedBins s;
  for (const auto* bins : {&a, &b}) {
    for (const Bin& bin : *bins) {
      s.edges.push_back(bin.lo);
      s.edges.push_back(bin.hi);
    }
  }
  std::sort(s.edges.begin(), s.edges.end());
  s.edges.erase(std::unique(s.edges.begin(), s.edges.end()), s.edges.end());
  s.mass[0] = Spread(a, s.edges);
  s.mass[1] = Spread(b, s.edges);
  return s;
}

double KsDistance(const SharedBins& s) {
  double fa = 0, fb = 0, d = 0;
  for (size_t i = 0; i < s.intervals(); ++i) {
    fa += s.mass[0][i];
    fb += s.mass[1][i];
    d = std::max(d, std::abs(fa - fb));
  }
  return std::min(d, 1.0);
}

double Wasserstein1(const SharedBins& s) {
  double fa = 0, fb = 0, w = 0;
  for (size_t i = 0; i < s.intervals(); ++i) {
    const double d0 = fa - fb;
    fa += s.mass[0][i];
    fb += s.mass[1][i];
    const double d1 = fa - fb;
    const double width = s.edges[i + 1] - s.edges[i];
    // |d| is linear across the interval, or crosses zero once.
    if ((d0 >= 0) == (d1 >= 0)) {
      w += width * (std::abs(d0) + std::abs(d1)) / 2;
    } else {
      w += width * (d0 * d0 + d1 * d1) / (2 * (std::abs(d0) + std::abs(d1)));
    }
  }
  return w;
}

double KsPValue(double d, double n, double m) {
  if (!(d > 0) || !(n > 0) || !(m > 0)) return 1.0;
  const double en = std::sqrt(n * m / (n + m));
  return KolmogorovQ((en + 0.12 + 0.11 / en) * d);
}

std::vector<Bin> BinSamples(const std::vector<double>& samples) {
  LogHistogram h;
  for (double v : samples) h.Add(v);
  std::vector<Bin> bins;
  for (const LogHistogram::Bin& b : h.Bins(1)) {
    bins.push_back({b.lo, b.hi, static_cast<double>(b.count)});
  }
  return bins;
}

double SharedQuantile(const SharedBins& s, int run, double q) {
  const std::vector<double>& mass = s.mass[static_cast<size_t>(run)];
  double f = 0;
  for (size_t i = 0; i < s.intervals(); ++i) {
    if (mass[i] > 0 && f + mass[i] >= q) {
      const double t = std::clamp((q - f) / mass[i], 0.0, 1.0);
      return s.edges[i] + t * (s.edges[i + 1] - s.edges[i]);
    }
    f += mass[i];
  }
  // Rounding left the total a little below q: the last occupied edge.
  for (size_t i = s.intervals(); i > 0; --i) {
    if (mass[i - 1] > 0) return s.edges[i];
  }
  return 0;
}

std::vector<OverlayRow> Overlay(const SharedBins& s) {
  std::vector<OverlayRow> rows;
  std::array<double, 2> cdf = {0, 0};
  for (size_t i = 0; i < s.intervals(); ++i) {
    OverlayRow row{s.edges[i], s.edges[i + 1], {}, {}};
    for (size_t r = 0; r < 2; ++r) {
      cdf[r] += s.mass[r][i];
      row.pdf[r] = s.mass[r][i] / (row.hi - row.lo);
      row.cdf[r] = std::min(cdf[r], 1.0);
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace verbsbench::compare
