// How much the network may worsen before the metric moves: the largest
// added latency, and the smallest bandwidth share, at which the metric
// stays within 1% and 5% of its baseline, read off the blocked fit
// (blocked_fit.h), with the interval its slope's interval gives.
//
// Latency: the metric is b + s x (x the added one-way latency in µs), so
// it leaves b ± p·|b| at x = p·|b| / |s|. Bandwidth: the fit is against
// x = 1/share - 1, the extra time to move a fixed volume (0 at the full
// link), so the share is 1 / (1 + p·|b| / |s|).
#ifndef VERBSEMU_SWEEP_TOLERANCE_H_
#define VERBSEMU_SWEEP_TOLERANCE_H_

#include <array>
#include <cmath>
#include <vector>

#include "sweep/blocked_fit.h"
#include "sweep/stats.h"

namespace verbsemu::sweep {

inline constexpr std::array<double, 2> kTolerances = {0.01, 0.05};

struct Tolerance {
  double within = 0;  // 0.01: within 1% of the baseline
  bool ok = false;    // a fit with a baseline other than 0
  // Added latency in µs, or a bandwidth share in (0, 1]. A flat fit gives
  // INFINITY (latency) or 0 (share): nothing tested moves it.
  double value = 0;
  Interval ci;  // 95%, from the slope's; may reach INFINITY or 0
  // The value lies beyond the tested range: an extrapolation of the line.
  bool extrapolated = false;
};

// max_tested: the largest added latency swept, in µs.
std::vector<Tolerance> LatencyTolerance(const BlockedFit& fit,
                                        double max_tested);
// min_tested: the smallest share swept.
std::vector<Tolerance> BandwidthTolerance(const BlockedFit& fit,
                                          double min_tested);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_TOLERANCE_H_
