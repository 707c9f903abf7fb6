#include "sweep/blocked_fit.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stats/stats.h"

namespace verbsemu::sweep {
namespace {

constexpr double kZ975 = 1.959964;

// Kendall's S variance for one block of xs, ties in x counted:
// [n(n-1)(2n+5) - sum t(t-1)(2t+5)] / 18.
double KendallVariance(std::vector<double> xs) {
  const auto term = [](double t) { return t * (t - 1) * (2 * t + 5); };
  double var = term(static_cast<double>(xs.size()));
  std::sort(xs.begin(), xs.end());
  for (size_t i = 0; i < xs.size();) {
    size_t j = i;
    while (j < xs.size() && xs[j] == xs[i]) ++j;
    var -= term(static_cast<double>(j - i));
    i = j;
  }
  return var / 18;
}

using Blocks = std::map<int, std::vector<size_t>>;  // block -> run indices

// Sen's interval from the sorted slopes: the order statistics
// (N - C)/2 and (N + C)/2 + 1 (1-based, rounded), as in TheilSen().
Interval SenInterval(const std::vector<double>& sorted, double var_s) {
  const double big_n = static_cast<double>(sorted.size());
  const double c = kZ975 * std::sqrt(std::max(0.0, var_s));
  const auto at = [&](double rank) {
    const double r = std::clamp(rank, 1.0, big_n);
    return sorted[static_cast<size_t>(r) - 1];
  };
  return {at(std::round((big_n - c) / 2)), at(std::round((big_n + c) / 2 + 1))};
}

// Offsets per block, residuals, the robust scale and the outliers.
void Residuals(const std::vector<double>& x, const std::vector<double>& y,
               const Blocks& blocks, BlockedFit* f) {
  f->residuals.assign(x.size(), 0);
  std::vector<double> offsets;
  for (const auto& [b, runs] : blocks) {
    std::vector<double> level;
    for (size_t i : runs) level.push_back(y[i] - f->slope * x[i]);
    const double offset = stats::Median(level);
    offsets.push_back(offset);
    for (size_t i : runs) f->residuals[i] = y[i] - f->slope * x[i] - offset;
  }
  f->intercept = stats::Median(offsets);
  // A block of odd size has one residual of 0 by construction (its
  // median run), which is no measure of noise: left out of the scale.
  std::vector<double> abs_r;
  for (double r : f->residuals) {
    if (r != 0) abs_r.push_back(std::fabs(r));
  }
  f->scale = 1.4826 * stats::Median(abs_r);
  for (size_t i = 0; i < x.size() && f->scale > 0; ++i) {
    if (std::fabs(f->residuals[i]) > kOutlierScales * f->scale) {
      f->outliers.push_back(i);
    }
  }
}

}  // namespace

BlockedFit FitBlocked(const std::vector<double>& x,
                      const std::vector<double>& y,
                      const std::vector<int>& block) {
  BlockedFit f;
  f.n = x.size();
  if (y.size() != f.n || block.size() != f.n) return f;
  Blocks blocks;
  for (size_t i = 0; i < f.n; ++i) blocks[block[i]].push_back(i);
  std::vector<double> slopes;
  double var_s = 0;
  for (const auto& [b, runs] : blocks) {
    const size_t before = slopes.size();
    std::vector<double> xs;
    for (size_t a = 0; a < runs.size(); ++a) {
      xs.push_back(x[runs[a]]);
      for (size_t c = a + 1; c < runs.size(); ++c) {
        const size_t i = runs[a], j = runs[c];
        if (x[i] != x[j]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
      }
    }
    if (slopes.size() > before) ++f.blocks;
    var_s += KendallVariance(std::move(xs));
  }
  if (slopes.empty()) return f;
  std::sort(slopes.begin(), slopes.end());
  f.ok = true;
  f.pairs = slopes.size();
  f.slope = stats::Median(slopes);
  f.slope_ci = SenInterval(slopes, var_s);
  Residuals(x, y, blocks, &f);
  return f;
}

}  // namespace verbsemu::sweep
