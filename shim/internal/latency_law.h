// The latency added per post: a constant, or drawn per one-way crossing
// from a law (emulate/delay_distribution.h). Draws are reproducible: draw i
// of a QP is RandomBits(seed, the QP's stream, i), where streams number the
// QPs in their order of creation, so a run with the same seed and the same
// program order draws the same delays, whatever its threads' timing. The
// drawn delays are counted for the report (mean, p50, p99, p99.9).
#ifndef VERBSEMU_SHIM_INTERNAL_LATENCY_LAW_H_
#define VERBSEMU_SHIM_INTERNAL_LATENCY_LAW_H_

#include <atomic>
#include <cstdint>

#include "emulate/delay_distribution.h"
#include "emulate/tsc.h"
#include "shim/internal/counters.h"
#include "shim/internal/log_buckets.h"

namespace verbsemu::shim::internal {

class LatencyLaw {
 public:
  void Set(const emulate::DelayDistribution& law, uint64_t seed,
           const emulate::TscCalibration& cal);
  // False for a constant: the callers keep the constant's cheaper path.
  bool varies() const { return varies_; }
  bool enabled() const { return enabled_; }
  const emulate::DelayDistribution& law() const { return law_; }
  uint64_t seed() const { return seed_; }

  // Ticks of `legs` one-way crossings, each drawn, from the QP's `stream`;
  // `*index` counts the QP's draws.
  uint64_t DrawTicks(uint64_t legs, uint64_t stream,
                     std::atomic<uint64_t>* index);

  uint64_t count() const { return count_.Get(); }
  double MeanNs() const;
  // Within 2^-5 (3%) of the drawn value at that rank.
  double QuantileNs(double q) const;
  void ResetCounts();

 private:
  emulate::DelayDistribution law_;
  bool varies_ = false;
  bool enabled_ = false;  // a mean above 0 (Mean() walks a replay's bins)
  uint64_t seed_ = 0;
  emulate::TscCalibration cal_;
  Counter count_, sum_ns_;
  LogBuckets<5> drawn_ns_;
};

// A seed for a run that gave none: from the kernel's random source.
uint64_t FreshSeed();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_LATENCY_LAW_H_
