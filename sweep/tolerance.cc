#include "sweep/tolerance.h"

#include <algorithm>

namespace verbsemu::sweep {
namespace {

// x at which |s| x reaches p·|b|; INFINITY for a flat slope.
double Reach(double p, double base, double slope) {
  return slope == 0 ? INFINITY : p * std::fabs(base) / std::fabs(slope);
}

// The tolerance along x, with its interval from the slope's.
Tolerance AlongX(double p, const BlockedFit& fit) {
  Tolerance t;
  t.within = p;
  if (!fit.ok || fit.intercept == 0) return t;
  t.ok = true;
  t.value = Reach(p, fit.intercept, fit.slope);
  const double lo = fit.slope_ci.lo, hi = fit.slope_ci.hi;
  const double steepest = std::max(std::fabs(lo), std::fabs(hi));
  // An interval that spans 0 allows a flat response: no upper end.
  const double flattest =
      lo <= 0 && hi >= 0 ? 0 : std::min(std::fabs(lo), std::fabs(hi));
  t.ci = {Reach(p, fit.intercept, steepest), Reach(p, fit.intercept, flattest)};
  return t;
}

}  // namespace

std::vector<Tolerance> LatencyTolerance(const BlockedFit& fit,
                                        double max_tested) {
  std::vector<Tolerance> out;
  for (double p : kTolerances) {
    Tolerance t = AlongX(p, fit);
    t.extrapolated = t.ok && t.value > max_tested;
    out.push_back(t);
  }
  return out;
}

std::vector<Tolerance> BandwidthTolerance(const BlockedFit& fit,
                                          double min_tested) {
  std::vector<Tolerance> out;
  const auto share = [](double x) { return 1 / (1 + x); };  // 1/inf = 0
  for (double p : kTolerances) {
    Tolerance t = AlongX(p, fit);
    if (t.ok) {
      t.value = share(t.value);
      t.ci = {share(t.ci.hi), share(t.ci.lo)};
      t.extrapolated = t.value < min_tested;
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace verbsemu::sweep
