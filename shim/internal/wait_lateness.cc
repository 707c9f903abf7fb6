#include "shim/internal/wait_lateness.h"

#include <algorithm>
#include <cmath>

namespace verbsemu::shim::internal {

int WaitLateness::BucketOf(uint64_t ticks) {
  return LogBuckets<kSubBits>::BucketOf(ticks);
}

uint64_t WaitLateness::UpperEdge(int bucket) {
  return LogBuckets<kSubBits>::UpperEdge(bucket);
}

void WaitLateness::Add(uint64_t waited_ticks, uint64_t late_ticks) {
  buckets_.Add(late_ticks);
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
  buckets_.Reset();
  count_.Reset();
  waited_.Reset();
  sum_.Reset();
  max_.Reset();
  tail_count_.Reset();
  tail_sum_.Reset();
}

uint64_t WaitLateness::QuantileTicks(double q) const {
  if (count() == 0) return 0;
  return std::min(buckets_.Quantile(q, count()), max_ticks());
}

}  // namespace verbsemu::shim::internal
