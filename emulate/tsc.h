// TSC clock: the time base of every emulated delay. Hot-path reads are a
// single rdtsc; conversion to and from nanoseconds uses a calibration taken
// once per process against CLOCK_MONOTONIC_RAW.
#ifndef VERBSEMU_EMULATE_TSC_H_
#define VERBSEMU_EMULATE_TSC_H_

#include <cstdint>

namespace verbsemu::emulate {

inline uint64_t ReadTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
#error "verbsemu needs a constant-rate TSC (x86-64)"
#endif
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Conversion factors between TSC ticks and nanoseconds.
struct TscCalibration {
  double ticks_per_ns = 1.0;
  // Median overshoot of SpinUntil on this machine, in ticks: what a spin of
  // nominal length D actually costs beyond D (rdtsc + pause + loop exit).
  uint64_t spin_fixed_cost_ticks = 0;

  uint64_t NsToTicks(double ns) const {
    return ns <= 0 ? 0 : static_cast<uint64_t>(ns * ticks_per_ns + 0.5);
  }
  double TicksToNs(uint64_t ticks) const {
    return static_cast<double>(ticks) / ticks_per_ns;
  }
};

// The real clock, in the shape SpinUntil and the pacer expect.
struct TscClock {
  uint64_t Now() const { return ReadTsc(); }
  void Relax() const { CpuRelax(); }
};

// Measures ticks_per_ns over `window_ns` of CLOCK_MONOTONIC_RAW (best of a few
// windows) and the spin fixed cost. Takes roughly 3 * window_ns.
TscCalibration CalibrateTsc(uint64_t window_ns = 5'000'000);

// Process-wide calibration, computed on first use (thread-safe).
const TscCalibration& ProcessTscCalibration();

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_TSC_H_
