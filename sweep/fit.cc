#include "sweep/fit.h"

#include <algorithm>
#include <cmath>

#include "stats/stats.h"
#include "sweep/blocked_fit.h"

namespace verbsemu::sweep {

LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f;
  f.n = x.size();
  if (f.n < 3 || y.size() != f.n) return f;
  double mx = 0, my = 0;
  for (size_t i = 0; i < f.n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(f.n);
  my /= static_cast<double>(f.n);
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < f.n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.ok = true;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  const double sse = std::max(0.0, syy - f.slope * sxy);
  f.r2 = syy > 0 ? 1 - sse / syy : 1;
  f.slope_se = std::sqrt(sse / static_cast<double>(f.n - 2) / sxx);
  const double half = stats::T975(static_cast<double>(f.n) - 2) * f.slope_se;
  f.slope_ci = {f.slope - half, f.slope + half};
  return f;
}

RobustFit TheilSen(const std::vector<double>& x, const std::vector<double>& y) {
  RobustFit f;
  f.n = x.size();
  if (f.n < 3 || y.size() != f.n) return f;
  // Theil-Sen is the blocked fit with every run in one block.
  const BlockedFit b = FitBlocked(x, y, std::vector<int>(f.n, 0));
  f.ok = b.ok;
  f.slope = b.slope;
  f.intercept = b.intercept;  // the one block's offset: median of y - slope x
  f.slope_ci = b.slope_ci;
  return f;
}

Ratio SlopeRatio(const LineFit& num, const LineFit& den) {
  Ratio r;
  if (!num.ok || !den.ok || den.slope == 0) return r;
  r.ok = true;
  r.value = num.slope / den.slope;
  const double rel2 =
      (num.slope != 0 ? std::pow(num.slope_se / num.slope, 2) : 0) +
      std::pow(den.slope_se / den.slope, 2);
  // The numerator's own error when its slope is zero.
  const double se = num.slope != 0 ? std::fabs(r.value) * std::sqrt(rel2)
                                   : num.slope_se / std::fabs(den.slope);
  r.ci = {r.value - 1.959964 * se, r.value + 1.959964 * se};
  return r;
}

}  // namespace verbsemu::sweep
