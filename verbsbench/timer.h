// Cycle-counter timer (rdtscp + lfence), calibrated against CLOCK_MONOTONIC,
// with its own overhead measured by back-to-back reads (Confidence's
// ORBTimer): the minimum is subtracted from measurements, the distribution is
// reported.
#ifndef VERBSBENCH_TIMER_H_
#define VERBSBENCH_TIMER_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "verbsbench/histogram.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

namespace verbsbench {

// Raw tick counter. rdtscp waits for earlier instructions to retire; the
// lfence keeps later ones from starting before the read.
inline uint64_t ReadTicks() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned aux;
  const uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
#endif
}

// CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNanos();

// Injectable time sources (the Abseil clock pattern): tests drive the
// calibration with simulated clocks.
using TickSource = std::function<uint64_t()>;
using NanoSource = std::function<int64_t()>;

struct CalibrationOptions {
  int64_t window_ns = 20'000'000;  // length of one calibration window
  int rounds = 5;                  // the median of the rounds is kept
};

// Tick frequency in Hz: ticks elapsed over `window_ns` of the reference
// clock. Each end point brackets the reference read between two tick reads
// and uses their midpoint.
double CalibrateHz(const TickSource& ticks, const NanoSource& nanos,
                   const CalibrationOptions& options = {});

// True when the CPU advertises an invariant TSC (CPUID 0x80000007 EDX[8]).
bool HasInvariantTsc();

class Timer {
 public:
  // Calibrates the TSC against CLOCK_MONOTONIC and measures the timer
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
