// How late the shim's waits end against their deadlines, for the report:
// a spin ends at the first clock reading past its deadline, so it is late
// by one loop iteration when nothing interrupts it, and by the whole
// absence when its thread loses the CPU (an interrupt, the kernel's
// scheduler, or a hypervisor's). The distribution tells those apart: a
// mean far above the median is a tail of lost CPU, not a slow spin.
// Process-wide, relaxed atomic adds: a wait lasts microseconds, an add
// nanoseconds. Buckets: four per power of two of ticks (within 19%).
#ifndef VERBSEMU_SHIM_INTERNAL_WAIT_LATENESS_H_
#define VERBSEMU_SHIM_INTERNAL_WAIT_LATENESS_H_

#include <array>
#include <cstdint>

#include "shim/internal/counters.h"
#include "shim/internal/log_buckets.h"

namespace verbsemu::shim::internal {

class WaitLateness {
 public:
  static constexpr int kSubBits = 2;  // 4 buckets per power of two
  static constexpr int kBuckets = (64 - kSubBits + 1) << kSubBits;

  // Waits later than this are the tail the report sums apart (the shim
  // sets 1 us: far beyond a spin iteration, even under emulation).
  void SetTailTicks(uint64_t ticks) { tail_ticks_ = ticks; }
  // One wait of `waited_ticks` from its start, which ended `late_ticks`
  // past its deadline.
  void Add(uint64_t waited_ticks, uint64_t late_ticks);
  void Reset();

  uint64_t count() const { return count_.Get(); }
  uint64_t waited_ticks() const { return waited_.Get(); }
  uint64_t sum_ticks() const { return sum_.Get(); }  // of the lateness
  uint64_t max_ticks() const { return max_.Get(); }
  // Upper edge of the bucket holding quantile q (0..1), in ticks.
  uint64_t QuantileTicks(double q) const;
  uint64_t tail_ticks() const { return tail_ticks_; }
  uint64_t tail_count() const { return tail_count_.Get(); }
  uint64_t tail_sum_ticks() const { return tail_sum_.Get(); }

  static int BucketOf(uint64_t ticks);
  static uint64_t UpperEdge(int bucket);  // the largest value in the bucket

 private:
  LogBuckets<kSubBits> buckets_;
  Counter count_, waited_, sum_, max_, tail_count_, tail_sum_;
  uint64_t tail_ticks_ = UINT64_MAX;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_WAIT_LATENESS_H_
