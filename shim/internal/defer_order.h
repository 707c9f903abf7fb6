// Per-destination order for a UD QP in defer mode (defer.h). A UD QP names
// its destination per WR, and with VERBSEMU_TOPOLOGY different destinations
// get different latencies: a post to a near class then leaves before an
// earlier one to a far class still held (as on the wire, where a datagram
// to a near peer does not wait for one to a far peer). Posts keep their
// order within one destination class (a lane; a recorded ibv_wr_* batch is
// a lane of its own that passes none and is passed by none).
//
// A post may be passed only while all its WRs are signaled: the provider
// completes a QP's WRs in the order they were handed to it, and an
// unsignaled WR is known complete only through a later signaled one, which
// would then wait for it.
//
// The application still polls the QP's send completions in post order, as
// on real hardware (it may count them to free its buffers in order): a
// completion of a WR that passed an earlier one is held by the shim until
// the earlier WRs completed, then returned after them. An error completion
// of the QP releases everything held first (its QP is in error; the order
// of what follows is the provider's).
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_ORDER_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_ORDER_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

namespace verbsemu::shim::internal {

class SyntheticCompletions;
struct DeferQueue;

// The lane of a recorded batch: passes no earlier post, passed by none.
inline const void* const kBatchLane = &kBatchLane;

// One QP's WRs from their post to the polling of their completions, which
// go out, in post order, to `out` for the QP's send CQ `cq`. Posted,
// Offer, Took and Completed run under the QP's queue lock; Polled from any
// polling thread.
class CompletionOrder {
 public:
  CompletionOrder(const ibv_cq* cq, SyntheticCompletions* out)
      : cq_(cq), out_(out) {}
  // A post of `wrs` WRs was queued; `signaled_at` holds the offsets (1 +
  // index, ascending) of its signaled WRs. Returns its first WR's number.
  uint64_t Posted(const uint32_t* signaled_at, size_t signaled, size_t wrs);
  // Before the provider's post of WRs [seq, seq + n): they take the next
  // hand-over places (noted first, so that a completion another thread
  // polls before Took is matched).
  void Offer(uint64_t seq, size_t n);
  // After it: the provider took the first `went` WRs offered.
  void Took(size_t went);
  // WR `seq` gets no completion from the provider: the shim completed it
  // with `*wc` (in error), or dropped it (null).
  void Completed(uint64_t seq, const ibv_wc* wc);
  // A send completion of this QP polled from the provider: it goes out
  // with the ones it releases.
  void Polled(const ibv_wc& wc);
  // The provider's send queue was emptied without completions (RESET).
  void Clear();
  // WRs tracked (tests).
  size_t Tracked();

 private:
  struct Wr {
    uint64_t place = 0;  // in hand-over order, from 1; 0: not handed over
    bool signaled = false;
    bool settled = false;
    bool polled = false;
    ibv_wc wc{};
  };
  Wr* Find(uint64_t seq);
  void Release();
  void ReleaseAll();

  const ibv_cq* const cq_;
  SyntheticCompletions* const out_;
  std::mutex mu_;
  std::deque<Wr> wrs_;            // under mu_: from front_seq_, post order
  uint64_t front_seq_ = 0;        // under mu_
  uint64_t next_place_ = 1;       // under mu_
  uint64_t completed_place_ = 0;  // under mu_: the provider completed these
  // Under mu_: the handed-over signaled WRs not yet polled, in hand-over
  // order (the provider's completion order).
  std::deque<uint64_t> signaled_;
  uint64_t offer_seq_ = 0;  // under mu_
  size_t offered_ = 0;      // under mu_
};

// Lanes (caller holds the queue's lock): when a post to `lane` due at
// `due` goes, at the earliest (after the earlier posts of its lane; a
// batch after every earlier post).
uint64_t LaneDue(DeferQueue& d, const void* lane, uint64_t due);
// When the next held post may go (kNeverDue: none held): the earliest due
// of the posts up to the first one that cannot be passed.
uint64_t NextDue(const DeferQueue& d);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_ORDER_H_
