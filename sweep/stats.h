// Summaries of a grid point's repeated runs: median, mean, a 95% interval
// for each (Student's t for the mean, a seeded percentile bootstrap for the
// median), so a sweep's table carries error bars a reader can trust. The
// t quantile and the median are //stats'.
#ifndef VERBSEMU_SWEEP_STATS_H_
#define VERBSEMU_SWEEP_STATS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace verbsemu::sweep {

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

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_STATS_H_
