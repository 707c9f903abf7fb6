#include "emulate/tsc.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "emulate/spin.h"

namespace verbsemu::emulate {
namespace {

struct Point {
  double ticks;  // midpoint of the bracketing tick reads
  int64_t ns;
};

Point ReadPoint(const TickSource& ticks, const NanoSource& nanos) {
  // Keep the tightest of a few brackets.
  Point best{0, 0};
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = ticks();
    const int64_t ns = nanos();
    const uint64_t t1 = ticks();
    if (t1 - t0 < best_width) {
      best_width = t1 - t0;
      best = {static_cast<double>(t0) + static_cast<double>(t1 - t0) / 2, ns};
    }
  }
  return best;
}

// The device's first instruction, as far as the delay is concerned.
__attribute__((noinline)) uint64_t StampNow() { return ReadTsc(); }

// Shape of an emulated post: the caller stamps, calls in, the callee stamps
// its own start, spins to start + target, then calls the next layer, which
// stamps. Whatever this path costs beyond `target` is the fixed cost.
using StampFn = uint64_t (*)();

__attribute__((noinline)) uint64_t SpinThenCall(uint64_t target, StampFn next,
                                                bool pause) {
  const TscClock clock{pause};
  const uint64_t start = ReadTsc();
  SpinUntil(clock, start + target);
  return next();
}

uint64_t MeasureSpinFixedCost(const TscCalibration& cal) {
  const uint64_t target = cal.NsToTicks(1000);
  // Opaque to the optimizer, so both calls stay real indirect calls.
  StampFn next = StampNow;
  uint64_t (*spin)(uint64_t, StampFn, bool) = SpinThenCall;
  asm volatile("" : "+r"(next), "+r"(spin));
  std::vector<uint64_t> overshoot;
  overshoot.reserve(2001);
  for (int i = 0; i < 2001; ++i) {
    const uint64_t before = ReadTsc();
    const uint64_t after = spin(target, next, cal.spin_pause);
    overshoot.push_back(after > before + target ? after - before - target : 0);
  }
  std::nth_element(overshoot.begin(), overshoot.begin() + 1000,
                   overshoot.end());
  return overshoot[1000];
}

}  // namespace

int64_t MonotonicRawNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double SteppedMedian(std::vector<double> v, double period) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double m = v[v.size() / 2];
  const auto lo = std::lower_bound(v.begin(), v.end(), m - period / 2);
  const auto hi = std::upper_bound(v.begin(), v.end(), m + period / 2);
  const double below = static_cast<double>(lo - v.begin());
  const double in = static_cast<double>(hi - lo);
  return m - period / 2 +
         (static_cast<double>(v.size()) / 2 - below) / in * period;
}

bool HasInvariantTsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007) {
    return false;
  }
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1;
#else
  return false;
#endif
}

std::string HypervisorVendor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  __cpuid(1, eax, ebx, ecx, edx);
  if (((ecx >> 31) & 1) == 0) return "";  // no hypervisor present bit
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  char id[13] = {};
  std::memcpy(id, &ebx, 4);
  std::memcpy(id + 4, &ecx, 4);
  std::memcpy(id + 8, &edx, 4);
  return id;
#else
  return "";
#endif
}

bool SpinShouldPause() { return HypervisorVendor() != "TCGTCGTCGTCG"; }

double CalibrateTicksPerNs(const TickSource& ticks, const NanoSource& nanos,
                           const CalibrationOptions& options) {
  if (options.window_ns <= 0 || options.rounds <= 0) {
    throw std::invalid_argument("tsc calibration: bad options");
  }
  std::vector<double> rates;
  for (int r = 0; r < options.rounds; ++r) {
    const Point a = ReadPoint(ticks, nanos);
    int64_t now = a.ns;
    while (now - a.ns < options.window_ns) now = nanos();
    const Point b = ReadPoint(ticks, nanos);
    if (b.ns <= a.ns || b.ticks <= a.ticks) {
      throw std::runtime_error("tsc calibration: clock did not advance");
    }
    rates.push_back((b.ticks - a.ticks) / static_cast<double>(b.ns - a.ns));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

TscCalibration CalibrateTsc(uint64_t window_ns) {
  TscCalibration cal;
  cal.ticks_per_ns = CalibrateTicksPerNs(
      ReadTsc, MonotonicRawNs,
      {.window_ns = static_cast<int64_t>(window_ns), .rounds = 3});
  cal.spin_pause = SpinShouldPause();
  cal.spin_fixed_cost_ticks = MeasureSpinFixedCost(cal);
  return cal;
}

const TscCalibration& ProcessTscCalibration() {
  static const TscCalibration cal = CalibrateTsc();
  return cal;
}

bool PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace verbsemu::emulate
