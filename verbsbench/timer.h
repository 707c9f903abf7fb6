// verbsbench's timer: emulate's cycle clock (ordered TSC reads, calibrated
// against CLOCK_MONOTONIC_RAW) with its own overhead measured by
// back-to-back reads (Confidence's ORBTimer): the minimum is subtracted from
// measurements, the distribution is reported.
#ifndef VERBSBENCH_TIMER_H_
#define VERBSBENCH_TIMER_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "emulate/tsc.h"
#include "verbsbench/histogram.h"

namespace verbsbench {

// Tick counter for timed regions: the ordered TSC read.
inline uint64_t ReadTicks() { return verbsemu::emulate::ReadTscOrdered(); }

using CalibrationOptions = verbsemu::emulate::CalibrationOptions;

class Timer {
 public:
  // Calibrates the TSC against CLOCK_MONOTONIC_RAW and measures the timer
  // overhead with `overhead_samples` back-to-back reads.
  static Timer Calibrate(const CalibrationOptions& options = {},
                         int overhead_samples = 100000);
  // A timer with a known frequency and overhead (tests, peers).
  Timer(double hz, double overhead_min_ns);

  double hz() const { return hz_; }
  double overhead_min_ns() const { return overhead_min_ns_; }
  const LogHistogram& overhead() const { return overhead_; }

  double TicksToNs(uint64_t ticks) const {
    return static_cast<double>(ticks) * ns_per_tick_;
  }
  // Elapsed time of one timed region with the timer overhead removed.
  double ElapsedNs(uint64_t start, uint64_t end) const {
    return TicksToNs(end - start) - overhead_min_ns_;
  }

  // Measures the overhead again (e.g. at the end of a run) into
  // `overhead_after`, to show whether it drifted during the run.
  void RemeasureOverhead(int samples);

  nlohmann::json ToJson() const;

 private:
  double hz_;
  double ns_per_tick_;
  double overhead_min_ns_;
  LogHistogram overhead_{0.005, 0.01};
  LogHistogram overhead_after_{0.005, 0.01};
};

}  // namespace verbsbench

#endif  // VERBSBENCH_TIMER_H_
