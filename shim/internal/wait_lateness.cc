#include "shim/internal/wait_lateness.h"

#include <algorithm>
#include <cmath>

namespace verbsemu::shim::internal {

int WaitLateness::BucketOf(uint64_t ticks) {
  // Values below 2^kSubBits have buckets of their own.
  if (ticks < (uint64_t{1} << kSubBits)) return static_cast<int>(ticks);
  const int msb = 63 - __builtin_clzll(ticks);
  const int sub = static_cast<int>((ticks >> (msb - kSubBits)) &
                                   ((uint64_t{1} << kSubBits) - 1));
  return ((msb - kSubBits + 1) << kSubBits) + sub;
}

uint64_t WaitLateness::UpperEdge(int bucket) {
  if (bucket < (1 << kSubBits)) return static_cast<uint64_t>(bucket);
  const int msb = (bucket >> kSubBits) + kSubBits - 1;
  const uint64_t sub = static_cast<uint64_t>(bucket & ((1 << kSubBits) - 1));
  if (msb >= 63 && sub == (1 << kSubBits) - 1) return UINT64_MAX;
  const uint64_t base = (uint64_t{1} << msb) + (sub << (msb - kSubBits));
  return base + (uint64_t{1} << (msb - kSubBits)) - 1;
}

void WaitLateness::Add(uint64_t waited_ticks, uint64_t late_ticks) {
  buckets_[static_cast<size_t>(BucketOf(late_ticks))].Add(1);
  count_.Add(1);
  waited_.Add(waited_ticks);
  sum_.Add(late_ticks);
  if (late_ticks > tail_ticks_) {
    tail_count_.Add(1);
    tail_sum_.Add(late_ticks);
  }
  uint64_t seen = max_.v.load(std::memory_order_relaxed);
  while (late_ticks > seen &&
         !max_.v.compare_exchange_weak(seen, late_ticks,
                                       std::memory_order_relaxed)) {
  }
}

void WaitLateness::Reset() {
  for (Counter& b : buckets_) b.Reset();
  count_.Reset();
  waited_.Reset();
  sum_.Reset();
  max_.Reset();
  tail_count_.Reset();
  tail_sum_.Reset();
}

uint64_t WaitLateness::QuantileTicks(double q) const {
  const uint64_t n = count();
  if (n == 0) return 0;
  const auto rank = static_cast<uint64_t>(
      std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(n)));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += buckets_[static_cast<size_t>(b)].Get();
    if (seen >= std::max<uint64_t>(rank, 1)) {
      return std::min(UpperEdge(b), max_ticks());
    }
  }
  return max_ticks();
}

}  // namespace verbsemu::shim::internal
