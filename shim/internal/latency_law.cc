#include "shim/internal/latency_law.h"

#include <sys/random.h>

#include <chrono>
#include <cmath>

namespace verbsemu::shim::internal {

void LatencyLaw::Set(const emulate::DelayDistribution& law, uint64_t seed,
                     const emulate::TscCalibration& cal) {
  law_ = law;
  varies_ = !law.is_constant();
  enabled_ = law.Mean() > 0;
  seed_ = seed;
  cal_ = cal;
  ResetCounts();
}

uint64_t LatencyLaw::DrawTicks(uint64_t legs, uint64_t stream,
                               std::atomic<uint64_t>* index) {
  uint64_t ticks = 0;
  for (uint64_t leg = 0; leg < legs; ++leg) {
    const uint64_t i = index->fetch_add(1, std::memory_order_relaxed);
    const double ns = law_.Sample(emulate::RandomBits(seed_, stream, i));
    const auto whole_ns = static_cast<uint64_t>(std::llround(ns));
    drawn_ns_.Add(whole_ns);
    sum_ns_.Add(whole_ns);
    count_.Add(1);
    ticks += cal_.NsToTicks(ns);
  }
  return ticks;
}

double LatencyLaw::MeanNs() const {
  const uint64_t n = count();
  return n ? static_cast<double>(sum_ns_.Get()) / static_cast<double>(n) : 0;
}

double LatencyLaw::QuantileNs(double q) const {
  return static_cast<double>(drawn_ns_.Quantile(q, count()));
}

void LatencyLaw::ResetCounts() {
  count_.Reset();
  sum_ns_.Reset();
  drawn_ns_.Reset();
}

uint64_t FreshSeed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != sizeof seed) {
    seed = static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
  }
  return seed;
}

}  // namespace verbsemu::shim::internal
