// Summaries of a grid point's repeated runs: median, mean, a 95% interval
// for each (Student's t for the mean, a seeded percentile bootstrap for the
// median), so a sweep's table carries error bars a reader can trust.
#ifndef VERBSEMU_SWEEP_STATS_H_
#define VERBSEMU_SWEEP_STATS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace verbsemu::sweep {

// The two-sided 95% quantile of Student's t with `df` degrees of freedom
// (t_{0.975}); df >= 1.
double StudentT975(size_t df);

struct Interval {
  double lo = 0, hi = 0;
};

struct Summary {
  size_t n = 0;
  double median = 0, mean = 0, sd = 0;
  Interval mean_ci;    // t interval; the point itself when n < 2
  Interval median_ci;  // percentile bootstrap; the point itself when n < 2
};

// `seed` makes the bootstrap reproducible; `resamples` of them.
Summary Summarize(std::vector<double> values, uint64_t seed = 1,
                  int resamples = 2000);

double Median(std::vector<double> values);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_STATS_H_
