// verbsbench's timer: emulate's cycle clock (ordered TSC reads, calibrated
// against CLOCK_MONOTONIC_RAW) with its own overhead measured by
// back-to-back reads (Confidence's ORBTimer): the minimum is subtracted from
// measurements, the distribution is reported. Every timed point also notes
// the CPU it ran on, so a sample whose thread migrated is counted.
#ifndef VERBSBENCH_TIMER_H_
#define VERBSBENCH_TIMER_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "emulate/tsc.h"
#include "verbsbench/histogram.h"

namespace verbsbench {

// Tick counter for deadlines and other untimed reads.
inline uint64_t ReadTicks() { return verbsemu::emulate::ReadTscOrdered(); }

// A timed point: the ordered TSC read and rdtscp's TSC_AUX from the same
// instruction (Linux: (node << 12) | cpu), so knowing the CPU costs nothing
// beyond the read itself.
struct Stamp {
  uint64_t ticks = 0;
  uint32_t cpu = 0;
};

inline Stamp ReadStamp() {
  Stamp s;
  s.ticks = verbsemu::emulate::ReadTscOrderedAux(&s.cpu);
  return s;
}

// The thread ran on another CPU at `end` than at `start`: the interval may
// hold a migration (cache and TLB refill, and TSCs of two CPUs).
inline bool Migrated(const Stamp& start, const Stamp& end) {
  return start.cpu != end.cpu;
}

using CalibrationOptions = verbsemu::emulate::CalibrationOptions;

class Timer {
 public:
  // Calibrates the TSC against the reference clock (ReferenceNs) and
  // measures the timer overhead with `overhead_samples` back-to-back reads.
  static Timer Calibrate(const CalibrationOptions& options = {},
                         int overhead_samples = 100000);
  // A timer with a known frequency and overhead (tests, peers).
  Timer(double hz, double overhead_min_ns);

  // The calibration reference, CLOCK_MONOTONIC_RAW: NTP does not slew it.
  // CLOCK_MONOTONIC runs up to 500 ppm off while ntpd or chrony corrects
  // the clock, and a TSC calibrated against it carries that error into every
  // sample.
  static int64_t ReferenceNs();
  static const char* ReferenceName() { return "CLOCK_MONOTONIC_RAW"; }
  // Whether TSC_AUX holds this CPU's number here, i.e. whether Migrated()
  // can see a migration (Linux sets it wherever rdtscp exists).
  static bool TscAuxIsCpu();

  double hz() const { return hz_; }
  double overhead_min_ns() const { return overhead_min_ns_; }
  const LogHistogram& overhead() const { return overhead_; }

  double TicksToNs(uint64_t ticks) const {
    return static_cast<double>(ticks) * ns_per_tick_;
  }
  uint64_t NsToTicks(double ns) const {
    return static_cast<uint64_t>(ns / ns_per_tick_);
  }
  // Elapsed time of one timed region with the timer overhead removed.
  double ElapsedNs(const Stamp& start, const Stamp& end) const {
    return TicksToNs(end.ticks - start.ticks) - overhead_min_ns_;
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
