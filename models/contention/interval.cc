#include "models/contention/interval.h"

#include <cmath>

#include "stats/stats.h"

namespace verbsemu::contention {

Interval TInterval(const std::vector<double>& values) {
  Interval r;
  r.n = static_cast<int>(values.size());
  if (r.n == 0) return r;
  double sum = 0, sq = 0;
  for (const double v : values) sum += v;
  r.value = sum / r.n;
  for (const double v : values) sq += (v - r.value) * (v - r.value);
  r.low = r.high = r.value;
  if (r.n < 2) return r;
  const double half = stats::T975(static_cast<double>(r.n - 1)) *
                      std::sqrt(sq / (r.n - 1) / r.n);
  r.low = r.value - half;
  r.high = r.value + half;
  return r;
}

}  // namespace verbsemu::contention
