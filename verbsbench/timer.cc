#include "verbsbench/timer.h"

#include <algorithm>
#include <stdexcept>

#include "verbsbench/stats.h"

namespace verbsbench {
namespace {

// Back-to-back ordered reads: the cost of timing an empty region.
double MeasureOverhead(const Timer& timer, int samples, LogHistogram& into) {
  double min_ns = 1e300;
  for (int i = 0; i < samples; ++i) {
    const uint64_t t0 = ReadTicks();
    const uint64_t t1 = ReadTicks();
    const double ns = timer.TicksToNs(t1 - t0);
    into.Add(ns);
    min_ns = std::min(min_ns, ns);
  }
  return samples > 0 ? min_ns : 0.0;
}

}  // namespace

Timer::Timer(double hz, double overhead_min_ns)
    : hz_(hz), ns_per_tick_(1e9 / hz), overhead_min_ns_(overhead_min_ns) {
  if (!(hz > 0)) throw std::invalid_argument("Timer: frequency must be > 0");
}

Timer Timer::Calibrate(const CalibrationOptions& options,
                       int overhead_samples) {
  namespace em = verbsemu::emulate;
  const double ticks_per_ns =
      em::CalibrateTicksPerNs(em::ReadTscOrdered, em::MonotonicRawNs, options);
  Timer timer(ticks_per_ns * 1e9, 0.0);
  timer.overhead_min_ns_ =
      MeasureOverhead(timer, overhead_samples, timer.overhead_);
  return timer;
}

void Timer::RemeasureOverhead(int samples) {
  overhead_after_.Clear();
  MeasureOverhead(*this, samples, overhead_after_);
}

nlohmann::json Timer::ToJson() const {
  nlohmann::json j = {{"source", "rdtscp+lfence"},
                      {"reference", "CLOCK_MONOTONIC_RAW"},
                      {"tsc_hz", hz_},
                      {"invariant_tsc", verbsemu::emulate::HasInvariantTsc()},
                      {"overhead_min_ns", overhead_min_ns_},
                      {"overhead", StatsJson(overhead_, {})}};
  if (overhead_after_.count() > 0) {
    j["overhead_after_run"] = StatsJson(overhead_after_, {});
  }
  return j;
}

}  // namespace verbsbench
