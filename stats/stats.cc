#include "stats/stats.h"

#include <gsl/gsl_cdf.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace verbsemu::stats {

double T975(double df) {
  if (!(df > 0)) return INFINITY;
  return gsl_cdf_tdist_Pinv(0.975, df);
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

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<size_t>(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] +
         (pos - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace verbsemu::stats
