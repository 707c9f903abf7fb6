#include "emulate/tsc.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <vector>

#include "emulate/spin.h"

namespace verbsemu::emulate {
namespace {

uint64_t MonotonicRawNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// One window: brackets both clocks tightly at start and end.
double MeasureTicksPerNs(uint64_t window_ns) {
  const uint64_t ns0 = MonotonicRawNs();
  const uint64_t t0 = ReadTsc();
  uint64_t ns1 = ns0;
  while (ns1 - ns0 < window_ns) ns1 = MonotonicRawNs();
  const uint64_t t1 = ReadTsc();
  return static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
}

// The device's first instruction, as far as the delay is concerned.
__attribute__((noinline)) uint64_t StampNow() { return ReadTsc(); }

// Shape of an emulated post: the caller stamps, calls in, the callee stamps
// its own start, spins to start + target, then calls the next layer, which
// stamps. Whatever this path costs beyond `target` is the fixed cost.
using StampFn = uint64_t (*)();

__attribute__((noinline)) uint64_t SpinThenCall(uint64_t target, StampFn next) {
  TscClock clock;
  const uint64_t start = ReadTsc();
  SpinUntil(clock, start + target);
  return next();
}

uint64_t MeasureSpinFixedCost(const TscCalibration& cal) {
  const uint64_t target = cal.NsToTicks(1000);
  // Opaque to the optimizer, so both calls stay real indirect calls.
  StampFn next = StampNow;
  uint64_t (*spin)(uint64_t, StampFn) = SpinThenCall;
  asm volatile("" : "+r"(next), "+r"(spin));
  std::vector<uint64_t> overshoot;
  overshoot.reserve(2001);
  for (int i = 0; i < 2001; ++i) {
    const uint64_t before = ReadTsc();
    const uint64_t after = spin(target, next);
    overshoot.push_back(after > before + target ? after - before - target : 0);
  }
  std::nth_element(overshoot.begin(), overshoot.begin() + 1000,
                   overshoot.end());
  return overshoot[1000];
}

}  // namespace

TscCalibration CalibrateTsc(uint64_t window_ns) {
  std::array<double, 3> rates{};
  for (double& r : rates) r = MeasureTicksPerNs(window_ns);
  std::sort(rates.begin(), rates.end());
  TscCalibration cal;
  cal.ticks_per_ns = rates[1];
  cal.spin_fixed_cost_ticks = MeasureSpinFixedCost(cal);
  return cal;
}

const TscCalibration& ProcessTscCalibration() {
  static const TscCalibration cal = CalibrateTsc();
  return cal;
}

}  // namespace verbsemu::emulate
