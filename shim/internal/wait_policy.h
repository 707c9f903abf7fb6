// How the shim waits until a deadline: long waits (pacing large messages,
// millisecond latencies) sleep for all but the last stretch, which is spun.
// A soft device such as rxe needs the CPU a spin would burn, and the final
// spin keeps the deadline exact (Linux's default timer slack is 50 us).
// Generic over the clock and the sleeper so tests drive it with
// emulate::SimulatedClock.
#ifndef VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_
#define VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "emulate/spin.h"

namespace verbsemu::shim::internal {

struct WaitPolicy {
  static constexpr double kSleepAboveNs = 250'000;
  static constexpr double kSpinTailNs = 120'000;
  // The most a late wake counts for: one wake seconds late (SIGSTOP, a
  // paused VM, a long preemption) must not make every later wait spin
  // whole, which it would, since only a sleep lowers late_ticks again.
  static constexpr double kMaxLateNs = 1'000'000;
  uint64_t sleep_above_ticks = ~uint64_t{0};  // waits longer than this sleep
  uint64_t spin_tail_ticks = 0;               // ... except for this tail
  uint64_t max_late_ticks = ~uint64_t{0};     // kMaxLateNs
  // How late the kernel woke the last sleeps, in ticks: raised at once by a
  // late wake, lowered by 1/16 of the difference by each timely one. A
  // guest under emulation can wake hundreds of microseconds late (seen:
  // 600-800 us for a 280 us sleep under QEMU TCG), where a fixed tail would
  // turn a 400 us target into 1 ms. The tail grows by twice this, and a
  // wait sleeps only if it still outlasts sleep_above_ticks plus that.
  std::atomic<uint64_t> late_ticks{0};
  // The last stretch of every wait, spun without pausing: a paused spin
  // ends up to one pause after its deadline, by an amount that depends on
  // the wait's length; an unpaused one within one clock read, whatever the
  // length (measured at start-up: CalibrateSpin).
  uint64_t tight_tail_ticks = 0;
  // The clock's read period (emulate::TscReadPeriodTicks at start-up: its
  // step where it advances in steps, else a read's cost). A spin ends at
  // its first read at or past the deadline; a loop that posts in a fixed
  // rhythm meets every deadline at one phase of that period, so each wait
  // ends late by the same part of a period: a bias of up to a period
  // (about 10 ns) that depends on the target. Each deadline is moved later
  // by a draw from [0, dither_ticks): the lateness then averages half a
  // period at any phase, and the fixed cost, measured through the same
  // waits, takes that half period back.
  uint64_t dither_ticks = 0;

  // `draw` uniform over 32 bits: scaled to [0, dither_ticks) by a multiply,
  // not a division, on every wait.
  uint64_t Dithered(uint64_t deadline, uint32_t draw) const {
    return deadline + ((draw * dither_ticks) >> 32);
  }
  uint64_t TailTicks() const {
    return spin_tail_ticks + 2 * late_ticks.load(std::memory_order_relaxed);
  }
  // How long a wait of `left` ticks sleeps before spinning its tail; 0 when
  // it only spins. One load of late_ticks, which other threads may raise.
  uint64_t SleepTicks(uint64_t left) const {
    const uint64_t tail =
        spin_tail_ticks + 2 * late_ticks.load(std::memory_order_relaxed);
    const uint64_t extra = tail - spin_tail_ticks;
    if (left <= sleep_above_ticks || left - sleep_above_ticks <= extra ||
        left <= tail) {
      return 0;
    }
    return left - tail;
  }
  void NoteWake(uint64_t asked, uint64_t slept) {
    const uint64_t late =
        std::min(slept > asked ? slept - asked : 0, max_late_ticks);
    const uint64_t old = late_ticks.load(std::memory_order_relaxed);
    late_ticks.store(late >= old ? late : old - (old - late) / 16,
                     std::memory_order_relaxed);
  }
};

// Spins until `deadline` (ticks of `clock`, a pause between reads) until
// policy.tight_tail_ticks before it, then with `tight` (the same time, read
// without pausing). Never sleeps: CPU time is what it is for (LogGP's o).
// Returns the reading when the spin ended.
template <class Clock, class Tight>
uint64_t SpinWithTail(Clock& clock, Tight& tight, const WaitPolicy& policy,
                      uint64_t deadline) {
  const uint64_t paused_until =
      deadline - std::min(policy.tight_tail_ticks, deadline);
  const uint64_t end = emulate::SpinUntil(clock, paused_until);
  return end < deadline ? emulate::SpinUntil(tight, deadline) : end;
}

// Waits until `deadline` (ticks of `clock`); `sleep(ticks)` gives up the CPU
// for about that long, and the rest is spun (SpinWithTail). Returns the
// reading when the wait ended.
template <class Clock, class Tight, class Sleep>
uint64_t WaitUntil(Clock& clock, Tight& tight, Sleep&& sleep,
                   WaitPolicy& policy, uint64_t deadline) {
  const uint64_t now = clock.Now();
  const uint64_t asked = deadline > now ? policy.SleepTicks(deadline - now) : 0;
  if (asked > 0) {
    sleep(asked);
    policy.NoteWake(asked, clock.Now() - now);
  }
  return SpinWithTail(clock, tight, policy, deadline);
}

// The same with one clock throughout.
template <class Clock, class Sleep>
uint64_t WaitUntil(Clock& clock, Sleep&& sleep, WaitPolicy& policy,
                   uint64_t deadline) {
  return WaitUntil(clock, clock, sleep, policy, deadline);
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_WAIT_POLICY_H_
