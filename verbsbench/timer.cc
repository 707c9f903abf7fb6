#include "verbsbench/timer.h"

#include <time.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "verbsbench/stats.h"

namespace verbsbench {

int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

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

}  // namespace

double CalibrateHz(const TickSource& ticks, const NanoSource& nanos,
                   const CalibrationOptions& options) {
  if (options.window_ns <= 0 || options.rounds <= 0) {
    throw std::invalid_argument("CalibrateHz: bad options");
  }
  std::vector<double> rates;
  for (int r = 0; r < options.rounds; ++r) {
    const Point a = ReadPoint(ticks, nanos);
    int64_t now = a.ns;
    while (now - a.ns < options.window_ns) now = nanos();
    const Point b = ReadPoint(ticks, nanos);
    if (b.ns <= a.ns || b.ticks <= a.ticks) {
      throw std::runtime_error("timer calibration: clock did not advance");
    }
    rates.push_back((b.ticks - a.ticks) * 1e9 /
                    static_cast<double>(b.ns - a.ns));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
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

Timer::Timer(double hz, double overhead_min_ns)
    : hz_(hz), ns_per_tick_(1e9 / hz), overhead_min_ns_(overhead_min_ns) {
  if (!(hz > 0)) throw std::invalid_argument("Timer: frequency must be > 0");
}

Timer Timer::Calibrate(const CalibrationOptions& options,
                       int overhead_samples) {
#if defined(__x86_64__) || defined(__i386__)
  const double hz = CalibrateHz(ReadTicks, MonotonicNanos, options);
#else
  const double hz = 1e9;
#endif
  Timer timer(hz, 0.0);
  double min_ns = 1e300;
  for (int i = 0; i < overhead_samples; ++i) {
    const uint64_t t0 = ReadTicks();
    const uint64_t t1 = ReadTicks();
    const double ns = timer.TicksToNs(t1 - t0);
    timer.overhead_.Add(ns);
    min_ns = std::min(min_ns, ns);
  }
  timer.overhead_min_ns_ = overhead_samples > 0 ? min_ns : 0.0;
  return timer;
}

void Timer::RemeasureOverhead(int samples) {
  overhead_after_.Clear();
  for (int i = 0; i < samples; ++i) {
    const uint64_t t0 = ReadTicks();
    const uint64_t t1 = ReadTicks();
    overhead_after_.Add(TicksToNs(t1 - t0));
  }
}

nlohmann::json Timer::ToJson() const {
  nlohmann::json j = {{"source",
#if defined(__x86_64__) || defined(__i386__)
                       "rdtscp+lfence"
#else
                       "clock_gettime(CLOCK_MONOTONIC_RAW)"
#endif
                      },
                      {"reference", "CLOCK_MONOTONIC"},
                      {"tsc_hz", hz_},
                      {"invariant_tsc", HasInvariantTsc()},
                      {"overhead_min_ns", overhead_min_ns_},
                      {"overhead", StatsJson(overhead_, {})}};
  if (overhead_after_.count() > 0) {
    j["overhead_after_run"] = StatsJson(overhead_after_, {});
  }
  return j;
}

}  // namespace verbsbench
