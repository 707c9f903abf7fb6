#include "verbsbench/timer.h"

#include <sched.h>

#include <algorithm>
#include <stdexcept>

#include "verbsbench/stats.h"

namespace verbsbench {
namespace {

// Back-to-back timed points, read as the timed regions read them (with the
// CPU): the cost of timing an empty region.
double MeasureOverhead(const Timer& timer, int samples, LogHistogram& into) {
  double min_ns = 1e300;
  for (int i = 0; i < samples; ++i) {
    const Stamp t0 = ReadStamp();
    const Stamp t1 = ReadStamp();
    const double ns = timer.TicksToNs(t1.ticks - t0.ticks);
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

int64_t Timer::ReferenceNs() { return verbsemu::emulate::MonotonicRawNs(); }

bool Timer::TscAuxIsCpu() {
  // The low 12 bits are the CPU. Retried when the thread moved between the
  // reads it is compared with.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int before = sched_getcpu();
    const Stamp s = ReadStamp();
    if (before < 0) return false;
    if (sched_getcpu() == before) {
      return (s.cpu & 0xfff) == static_cast<uint32_t>(before);
    }
  }
  return false;
}

Timer Timer::Calibrate(const CalibrationOptions& options,
                       int overhead_samples) {
  const double ticks_per_ns =
      verbsemu::emulate::CalibrateTicksPerNs(ReadTicks, ReferenceNs, options);
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
  nlohmann::json j = {
      {"source", "rdtscp+lfence"},
      {"reference", ReferenceName()},
      {"tsc_hz", hz_},
      {"invariant_tsc", verbsemu::emulate::HasInvariantTsc()},
      {"migration_check", TscAuxIsCpu() ? "rdtscp TSC_AUX" : "unavailable"},
      {"overhead_min_ns", overhead_min_ns_},
      {"overhead", StatsJson(overhead_)}};
  if (overhead_after_.count() > 0) {
    j["overhead_after_run"] = StatsJson(overhead_after_);
  }
  return j;
}

}  // namespace verbsbench
