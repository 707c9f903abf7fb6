#include "sweep/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>

#include "stats/stats.h"

namespace verbsemu::sweep {
namespace {

Interval BootstrapMedian(const std::vector<double>& values, uint64_t seed,
                         int resamples) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::vector<double> medians(static_cast<size_t>(resamples));
  std::vector<double> sample(values.size());
  for (double& m : medians) {
    for (double& s : sample) s = values[pick(rng)];
    m = stats::Median(sample);
  }
  std::sort(medians.begin(), medians.end());
  return {stats::Quantile(medians, 0.025), stats::Quantile(medians, 0.975)};
}

}  // namespace

Summary Summarize(std::vector<double> values, uint64_t seed, int resamples) {
  Summary s;
  s.n = values.size();
  if (s.n == 0) return s;
  std::sort(values.begin(), values.end());
  s.median = stats::Median(values);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) /
           static_cast<double>(s.n);
  s.median_ci = {s.median, s.median};
  s.mean_ci = {s.mean, s.mean};
  if (s.n < 2) return s;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / static_cast<double>(s.n - 1));
  const double half = stats::T975(static_cast<double>(s.n - 1)) * s.sd /
                      std::sqrt(static_cast<double>(s.n));
  s.mean_ci = {s.mean - half, s.mean + half};
  s.median_ci = BootstrapMedian(values, seed, resamples);
  return s;
}

}  // namespace verbsemu::sweep
