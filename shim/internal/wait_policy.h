// How the shim waits until a deadline: long waits (pacing large messages,
// millisecond latencies) sleep for all but the last stretch, which is spun.
// A soft device such as rxe needs the CPU a spin would burn, and the final
// spin keeps the deadline exact (Linux's default timer slack is 50 us).
// Generic over the clock and the sleeper so tests drive it with
// emulate::SimulatedClock.
#ifndef VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_
#define VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_

#include <cstdint>

#include "emulate/spin.h"

namespace verbsemu::shim::internal {

struct WaitPolicy {
  static constexpr double kSleepAboveNs = 250'000;
  static constexpr double kSpinTailNs = 120'000;
  uint64_t sleep_above_ticks = ~uint64_t{0};  // waits longer than this sleep
  uint64_t spin_tail_ticks = 0;               // ... except for this tail
};

// Waits until `deadline` (ticks of `clock`); `sleep(ticks)` gives up the CPU
// for about that long. Returns the clock's reading when the wait ended.
template <class Clock, class Sleep>
uint64_t WaitUntil(Clock& clock, Sleep&& sleep, const WaitPolicy& policy,
                   uint64_t deadline) {
  const uint64_t now = clock.Now();
  if (deadline > now && deadline - now > policy.sleep_above_ticks) {
    sleep(deadline - now - policy.spin_tail_ticks);
  }
  return emulate::SpinUntil(clock, deadline);
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_
