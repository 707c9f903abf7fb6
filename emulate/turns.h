// Round robin among the queued senders of one shared link. A link's
// schedule (pacer.h) is first booked, first served: when two senders' next
// messages reach it at one instant, whichever books first goes first, and a
// sender whose own link is faster than this one (its queue always waiting
// here) books the moment its last message is through, as early as any
// other sender can, so it wins about half the ties it should share and
// takes more than its share of the link. Here a sender that took the last
// turn looks again only `grace` after the link is free, so one that reaches
// the link at that instant books first; a sender alone on the link loses
// nothing, as its booking still starts when the link is free (it is only
// made later).
//
// One lock-free word, which may live in shared memory beside the link's
// PacerState: a booking and its turn are two stores, so two racing
// bookings may leave the other's name; the next turn is then first come,
// as without turns.
#ifndef VERBSEMU_EMULATE_TURNS_H_
#define VERBSEMU_EMULATE_TURNS_H_

#include <atomic>
#include <cstdint>

namespace verbsemu::emulate {

// Who took the last turn on a link. Zero-filled is a link whose senders
// have had no turn.
struct TurnState {
  std::atomic<uint64_t> last{0};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "a shared turn needs an address-free atomic");

// 0 when `me` (any non-zero name unique among the link's senders) may book
// at `now` on a link free from `free_at`; else the tick at which to look
// again: `free_at + grace` when `me` took the last turn and that is still
// to come.
uint64_t TurnWait(const TurnState& turns, uint64_t me, uint64_t now,
                  uint64_t free_at, uint64_t grace);

// `me` booked the link: the next turn is the others' first.
inline void TookTurn(TurnState& turns, uint64_t me) {
  turns.last.store(me, std::memory_order_relaxed);
}

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_TURNS_H_
