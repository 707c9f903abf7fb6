// A mean over runs and its 95% Student t interval: what the fit reports
// for alpha and for every measured penalty.
#ifndef VERBSEMU_MODELS_CONTENTION_INTERVAL_H_
#define VERBSEMU_MODELS_CONTENTION_INTERVAL_H_

#include <vector>

namespace verbsemu::contention {

// Mean of n values and its 95% Student t interval (low = high = value when
// n < 2: no interval).
struct Interval {
  double value = 0, low = 0, high = 0;
  int n = 0;
};
Interval TInterval(const std::vector<double>& values);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_INTERVAL_H_
