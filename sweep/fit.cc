#include "sweep/fit.h"

#include <algorithm>
#include <cmath>

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
  const double half = StudentT975(f.n - 2) * f.slope_se;
  f.slope_ci = {f.slope - half, f.slope + half};
  return f;
}

RobustFit TheilSen(const std::vector<double>& x, const std::vector<double>& y) {
  RobustFit f;
  f.n = x.size();
  if (f.n < 3 || y.size() != f.n) return f;
  std::vector<double> slopes;
  for (size_t i = 0; i < f.n; ++i) {
    for (size_t j = i + 1; j < f.n; ++j) {
      if (x[i] != x[j]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
    }
  }
  if (slopes.empty()) return f;
  std::sort(slopes.begin(), slopes.end());
  f.ok = true;
  f.slope = Median(slopes);
  std::vector<double> rest(f.n);
  for (size_t i = 0; i < f.n; ++i) rest[i] = y[i] - f.slope * x[i];
  f.intercept = Median(rest);
  // Var(S) with ties in x: [n(n-1)(2n+5) - sum t(t-1)(2t+5)] / 18.
  const auto term = [](double t) { return t * (t - 1) * (2 * t + 5); };
  double var = term(static_cast<double>(f.n));
  std::vector<double> xs = x;
  std::sort(xs.begin(), xs.end());
  for (size_t i = 0; i < xs.size();) {
    size_t j = i;
    while (j < xs.size() && xs[j] == xs[i]) ++j;
    var -= term(static_cast<double>(j - i));
    i = j;
  }
  const double c = 1.959964 * std::sqrt(std::max(0.0, var / 18));
  const double big_n = static_cast<double>(slopes.size());
  // Sen (1968): the order statistics (N - C)/2 and (N + C)/2 + 1, 1-based.
  const auto at = [&](double rank) {
    const double r = std::clamp(std::round(rank), 1.0, big_n);
    return slopes[static_cast<size_t>(r) - 1];
  };
  f.slope_ci = {at((big_n - c) / 2), at((big_n + c) / 2 + 1)};
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
