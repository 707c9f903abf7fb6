// LogGP's g: the least time between the starts of two messages on one
// schedule (a QP's, or a port's shared by every QP and process on it). A
// single lock-free word, the tick at which the schedule is next free, so it
// may live in memory several processes map (shim/internal/port_link.h).
#ifndef VERBSEMU_EMULATE_GAP_CLOCK_H_
#define VERBSEMU_EMULATE_GAP_CLOCK_H_

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "emulate/catch_up.h"

namespace verbsemu::emulate {

// Reserves the schedule `next_free` for `span` ticks (a post of n messages:
// n gaps) and returns when the post may start: not before `now`, nor before
// the schedule is free. The schedule moves by whole spans, so a sender that
// wakes late does not lose its rate, and one that posts less often than
// the gap is never held.
//
// `burst`: how far behind `now` the schedule may lag and still be caught up.
// A sender held up (preempted, an interrupt, its own work) then posts the
// messages it owes sooner, so the long-run rate stays at the target. A
// schedule further behind was idle: it lends nothing, and the post starts
// the schedule again at `now` (a burst after an idle stretch keeps the
// rate from its first message). 0: strict, every start at least one gap
// after the previous one.
//
// With `max_ahead` (0: unbounded), a schedule booked further ahead of `now`
// than that (garbage in a shared segment, a TSC that went backwards)
// starts again at `now`.
inline uint64_t ReserveGap(std::atomic<uint64_t>& next_free, uint64_t now,
                           uint64_t span, uint64_t burst = 0,
                           uint64_t max_ahead = 0) {
  uint64_t seen = next_free.load(std::memory_order_relaxed);
  for (;;) {
    const bool bogus = max_ahead != 0 && seen > now && seen - now > max_ahead;
    const uint64_t slot = bogus ? now : CatchUpStart(seen, now, burst);
    if (next_free.compare_exchange_weak(seen, slot + span,
                                        std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
      return std::max(slot, now);
    }
  }
}

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_GAP_CLOCK_H_
