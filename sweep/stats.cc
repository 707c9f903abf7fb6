#include "sweep/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>

namespace verbsemu::sweep {
namespace {

// t_{0.975} for df = 1..30, then at 40, 60, 120 (standard tables).
constexpr std::array<double, 30> kT975 = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
struct Tail {
  double df, t;
};
constexpr std::array<Tail, 4> kT975Tail = {
    {{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}}};
constexpr double kZ975 = 1.959964;

// The q-quantile of sorted values, interpolated between order statistics.
double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] +
         (pos - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

Interval BootstrapMedian(const std::vector<double>& values, uint64_t seed,
                         int resamples) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::vector<double> medians(static_cast<size_t>(resamples));
  std::vector<double> sample(values.size());
  for (double& m : medians) {
    for (double& s : sample) s = values[pick(rng)];
    m = Median(sample);
  }
  std::sort(medians.begin(), medians.end());
  return {Quantile(medians, 0.025), Quantile(medians, 0.975)};
}

}  // namespace

double StudentT975(size_t df) {
  if (df == 0) return INFINITY;
  if (df <= kT975.size()) return kT975[df - 1];
  // Beyond the table: linear in 1/df, which is how t approaches z.
  const double x = 1.0 / static_cast<double>(df);
  for (size_t i = 1; i < kT975Tail.size(); ++i) {
    const Tail a = kT975Tail[i - 1], b = kT975Tail[i];
    if (static_cast<double>(df) <= b.df) {
      const double xa = 1 / a.df, xb = 1 / b.df;
      return b.t + (a.t - b.t) * (x - xb) / (xa - xb);
    }
  }
  const Tail last = kT975Tail.back();
  return kZ975 + (last.t - kZ975) * x * last.df;
}

double Median(std::vector<double> values) {
  if (values.empty()) return NAN;
  const auto mid = static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double hi = values[static_cast<size_t>(mid)];
  if (values.size() % 2 == 1) return hi;
  const double lo = *std::max_element(values.begin(), values.begin() + mid);
  return (lo + hi) / 2;
}

Summary Summarize(std::vector<double> values, uint64_t seed, int resamples) {
  Summary s;
  s.n = values.size();
  if (s.n == 0) return s;
  std::sort(values.begin(), values.end());
  s.median = Median(values);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) /
           static_cast<double>(s.n);
  s.median_ci = {s.median, s.median};
  s.mean_ci = {s.mean, s.mean};
  if (s.n < 2) return s;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / static_cast<double>(s.n - 1));
  const double half =
      StudentT975(s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  s.mean_ci = {s.mean - half, s.mean + half};
  s.median_ci = BootstrapMedian(values, seed, resamples);
  return s;
}

}  // namespace verbsemu::sweep
