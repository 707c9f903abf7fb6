// Calibrated spin delay (InterSense section 4): busy-wait in the posting thread
// until a TSC deadline. Generic over the clock so tests can inject one.
#ifndef VERBSEMU_EMULATE_SPIN_H_
#define VERBSEMU_EMULATE_SPIN_H_

#include <cstdint>

namespace verbsemu::emulate {

// A Clock has `uint64_t Now()` (ticks) and `void Relax()` (one spin-loop
// pause). Spins until Now() >= deadline; returns the last reading.
template <class Clock>
uint64_t SpinUntil(Clock& clock, uint64_t deadline) {
  uint64_t now = clock.Now();
  while (now < deadline) {
    clock.Relax();
    now = clock.Now();
  }
  return now;
}

// Latency emulation model: a target delay with the spin's own fixed cost
// subtracted, measured from a start timestamp taken on entry to the shim, so
// the shim's bookkeeping before the spin is absorbed into the delay.
class DelayModel {
 public:
  DelayModel() = default;
  DelayModel(uint64_t target_ticks, uint64_t fixed_cost_ticks)
      : target_ticks_(target_ticks), fixed_cost_ticks_(fixed_cost_ticks) {}

  bool enabled() const { return target_ticks_ != 0; }
  uint64_t target_ticks() const { return target_ticks_; }
  // Deadline for a post that entered the shim at `start` and crosses the
  // link `legs` times before it completes (2 for a read: request, response).
  uint64_t Deadline(uint64_t start, uint64_t legs = 1) const {
    const uint64_t total = legs * target_ticks_;
    return start + (total > fixed_cost_ticks_ ? total - fixed_cost_ticks_ : 0);
  }
  // Deadline for a post whose legs were drawn to `total_ticks` in all.
  uint64_t DeadlineAfter(uint64_t start, uint64_t total_ticks) const {
    return start + (total_ticks > fixed_cost_ticks_
                        ? total_ticks - fixed_cost_ticks_
                        : 0);
  }
  // True when even a read's two legs end within the shim's own fixed cost:
  // there is nothing to wait, so a caller need not read the clock at all.
  bool WaitsNothing() const { return 2 * target_ticks_ <= fixed_cost_ticks_; }

 private:
  uint64_t target_ticks_ = 0;
  uint64_t fixed_cost_ticks_ = 0;
};

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_SPIN_H_
