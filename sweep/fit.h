// Straight-line fits of a sweep's runs: the metric against the added
// one-way latency (its slope is the application's sensitivity per µs),
// with the slope's 95% interval and R², and the ratio of two slopes
// (Netscope's delay sensitivity c_a: an application's slope over a
// ping-pong's, so that a ping-pong's is 1).
#ifndef VERBSEMU_SWEEP_FIT_H_
#define VERBSEMU_SWEEP_FIT_H_

#include <cstddef>
#include <vector>

#include "sweep/stats.h"

namespace verbsemu::sweep {

struct LineFit {
  bool ok = false;  // at least 3 points and two distinct x
  size_t n = 0;
  double slope = 0, intercept = 0;
  double slope_se = 0;
  Interval slope_ci;  // 95%, Student's t with n - 2 degrees of freedom
  double r2 = 0;
};

// Ordinary least squares of y on x, every run one point.
LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y);

// Theil-Sen: the median of the slopes between every two runs at different
// x, so a few stalled runs (a soft device's whole-run stalls of
// milliseconds) cannot tilt the line; its 95% interval is Sen's, from the
// distribution of Kendall's S with ties in x.
struct RobustFit {
  bool ok = false;  // at least 3 points and two distinct x
  size_t n = 0;
  double slope = 0, intercept = 0;  // intercept: median of y - slope x
  Interval slope_ci;
};

RobustFit TheilSen(const std::vector<double>& x, const std::vector<double>& y);

struct Ratio {
  bool ok = false;
  double value = 0;
  Interval ci;  // 95%, first-order (delta method) from both slopes' errors
};

// num.slope / den.slope.
Ratio SlopeRatio(const LineFit& num, const LineFit& den);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_FIT_H_
