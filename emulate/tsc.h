// The one cycle clock of verbsemu (the shim's delays and verbsbench's timer):
// a TSC read, plain for hot paths or ordered for timed regions, one CpuRelax,
// and a calibration against CLOCK_MONOTONIC_RAW whose sources are injectable
// (Abseil's CycleClock idea), so tests drive it with simulated clocks.
#ifndef VERBSEMU_EMULATE_TSC_H_
#define VERBSEMU_EMULATE_TSC_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace verbsemu::emulate {

// Plain read: one rdtsc, free to move past neighbouring instructions.
inline uint64_t ReadTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
#error "verbsemu needs a constant-rate TSC (x86-64)"
#endif
}

// Ordered read for timing a region: rdtscp waits for earlier instructions
// to retire; the lfence keeps later ones from starting before the read.
// `aux` gets rdtscp's TSC_AUX, which Linux sets to (node << 12) | cpu: two
// reads with different values ran on different CPUs.
inline uint64_t ReadTscOrderedAux(uint32_t* aux) {
  unsigned a;
  const uint64_t t = __rdtscp(&a);
  _mm_lfence();
  *aux = a;
  return t;
}

inline uint64_t ReadTscOrdered() {
  uint32_t aux;
  return ReadTscOrderedAux(&aux);
}

// One spin-loop pause (see TscClock for where it is left out).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The period at which a spin sees its clock move: the median advance
// between back-to-back reads of `read` (ticks), zero advances left out. That
// is the read's own cost where the counter moves every tick, or the
// counter's step where it advances in steps (about 10 ns on AMD EPYC hosts
// and on some virtual machines). Not the smallest advance: a TSC that steps
// by 26 ticks also shows advances of 1 tick now and then (seen on an EPYC
// guest in 6% of reads), and a spin still ends up to a whole step late.
template <class Read>
uint64_t ClockReadPeriodTicks(Read&& read, int reads = 10'001) {
  std::vector<uint64_t> advances;
  advances.reserve(static_cast<size_t>(reads));
  uint64_t prev = read();
  for (int i = 0; i < reads; ++i) {
    const uint64_t t = read();
    if (t > prev) advances.push_back(t - prev);
    prev = t;
  }
  if (advances.empty()) return 1;
  const auto mid = advances.begin() + static_cast<long>(advances.size() / 2);
  std::nth_element(advances.begin(), mid, advances.end());
  return *mid;
}

// The same for the TSC itself, read as the spin reads it.
inline uint64_t TscReadPeriodTicks() {
  return ClockReadPeriodTicks([] { return ReadTsc(); });
}

// The median of samples that are differences of clock readings taken at
// `period` (ClockReadPeriodTicks, in the samples' unit): the sample median
// snaps to the period, so it is interpolated within it, the samples taken
// as spread evenly over their period (their phase against it is random).
// 0 for no samples.
double SteppedMedian(std::vector<double> samples, double period);

// CLOCK_MONOTONIC_RAW in nanoseconds: the calibration reference.
int64_t MonotonicRawNs();

// True when the CPU advertises an invariant TSC (CPUID 0x80000007 EDX[8]).
bool HasInvariantTsc();

// The hypervisor's CPUID signature (leaf 0x40000000: "KVMKVMKVM",
// "TCGTCGTCGTCG" for QEMU's TCG, "Microsoft Hv", ...); empty on bare metal.
std::string HypervisorVendor();

// Whether a spin should pause between its clock reads on this machine: yes,
// except under QEMU's TCG, where a pause leaves the translated code for the
// emulator's CPU loop. Measured in the test bed (emulate/spin_probe, four
// runs of 20,000 spins of 20 us): 261-291 ns per loop iteration with pause,
// 17-58 ns without; a spin ended late by a median 137-148 ns with pause,
// 7-37 ns without.
bool SpinShouldPause();

// Conversion factors between TSC ticks and nanoseconds.
struct TscCalibration {
  double ticks_per_ns = 1.0;
  bool spin_pause = true;  // SpinShouldPause() on the calibrated machine
  // Median overshoot of SpinUntil on this machine, in ticks: what a spin of
  // nominal length D actually costs beyond D (rdtsc + pause + loop exit).
  uint64_t spin_fixed_cost_ticks = 0;

  uint64_t NsToTicks(double ns) const {
    // ns > 0 here, so +0.5 and truncation round to nearest; no libm call
    // (llround) on the post path, where latency draws convert per post.
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    return ns <= 0 ? 0 : static_cast<uint64_t>(ns * ticks_per_ns + 0.5);
  }
  double TicksToNs(uint64_t ticks) const {
    return static_cast<double>(ticks) / ticks_per_ns;
  }
};

// The real clock, in the shape SpinUntil and the pacer expect. `pause`
// off: the spin only reads the clock (TscCalibration::spin_pause).
struct TscClock {
  bool pause = true;
  uint64_t Now() const { return ReadTsc(); }
  void Relax() const {
    if (pause) CpuRelax();
  }
};

// Injectable sources for the calibration: tests pass simulated clocks.
using TickSource = std::function<uint64_t()>;
using NanoSource = std::function<int64_t()>;

struct CalibrationOptions {
  int64_t window_ns = 20'000'000;  // length of one calibration window
  int rounds = 5;                  // the median of the rounds is kept
};

// Ticks per nanosecond: ticks elapsed over `window_ns` of the reference
// clock, median of `rounds` windows. Each end point brackets the reference
// read between two tick reads and uses their midpoint. Throws
// std::invalid_argument on bad options, std::runtime_error when a clock does
// not advance.
double CalibrateTicksPerNs(const TickSource& ticks, const NanoSource& nanos,
                           const CalibrationOptions& options = {});

// Measures ticks_per_ns against CLOCK_MONOTONIC_RAW (median of three
// `window_ns` windows) and the spin fixed cost. Takes roughly 3 * window_ns.
TscCalibration CalibrateTsc(uint64_t window_ns = 5'000'000);

// Pins the calling thread (and threads it starts later) to `cpu`, so a
// benchmark's TSC reads and spins stay on one core; false when refused.
bool PinToCpu(int cpu);

// Process-wide calibration, computed on first use (thread-safe).
const TscCalibration& ProcessTscCalibration();

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_TSC_H_
