// One application post held back by the defer latency mode (defer.h): a
// copy of an ibv_post_send chain, or a recorded ibv_wr_* batch, and when it
// is due at the provider. ibv_post_send lets the application reuse its WR
// structs, SGE arrays and inline data as soon as the call returns, so all of
// them are copied; registered memory is the provider's to read at the real
// post, as it would be for a slow NIC.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFERRED_POST_H_
#define VERBSEMU_SHIM_INTERNAL_DEFERRED_POST_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "shim/internal/post_shape.h"
#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {

// What a deferred post still owes its peer's ingress (VERBSEMU_FABRIC=links):
// the bytes it sends there, reserved when the post reaches its queue's head
// and is due rather than when it was posted, and how long after that
// reservation's release it is due (its latency). So senders into one port
// take turns WR by WR, as a fabric's arbitration makes them, not window by
// window (each sender's whole queue booked ahead of the next one's).
//
// With VERBSEMU_FABRIC=penalty the bytes are booked on the QP's flow
// instead (fabric_flows.h): `rho` and `end` are that booking, kept until
// the post is due so that flows that arrive or leave meanwhile can
// lengthen or shorten it from `mark` on.
struct LateIngress {
  uint64_t bytes = 0;
  uint64_t start = 0;  // TSC: when its first byte left its egress
  uint64_t latency_ticks = 0;
  uint64_t due = 0;   // links: its egress's due, the earliest it may go
  double rho = 0;     // penalty: 0 until booked
  uint64_t end = 0;   // penalty: TSC when its last byte is through
  uint64_t mark = 0;  // penalty: its rate is rho from here to `end`
};

class DeferredPost {
 public:
  // Copies the WRs from `first` up to, not including, `stop` (nullptr: the
  // whole chain). Inline WRs get their data copied and their SGEs pointed
  // at the copy; a TSO header is copied too.
  void CopyChain(const ibv_send_wr* first, const ibv_send_wr* stop);
  // Holds a recorded batch: `*recording` is swapped with this post's spare
  // (the caller gets a closed recording back to reuse).
  void TakeBatch(std::unique_ptr<WrRecording>* recording);

  bool is_batch() const { return batch_ != nullptr && batch_->open(); }
  size_t wrs() const { return is_batch() ? shape.wrs : chain_.size() - first_; }
  // The first WR still to post; nullptr for a batch or an empty post.
  ibv_send_wr* chain() { return chain_.empty() ? nullptr : &chain_[first_]; }
  // After the provider refused `bad` with a resource error: the WRs before
  // it went, so the post keeps `bad` and what follows. Returns how many
  // went.
  size_t KeepFrom(const ibv_send_wr* bad);
  // The first WR still to post leaves the post (completed in error).
  void DropFront() {
    if (first_ < chain_.size()) ++first_;
  }
  WrRecording* batch() { return batch_.get(); }
  void Clear();

  uint64_t entered = 0;  // TSC: the application's call
  uint64_t due = 0;      // TSC: when it goes to the provider
  // Per-destination order (defer_order.h): its lane, its first WR still
  // held, and whether every WR is signaled (so later posts may pass it).
  const void* lane = nullptr;
  uint64_t seq = 0;
  bool all_signaled = false;
  PostShape shape;
  LateIngress late;

 private:
  void Relink();

  std::vector<ibv_send_wr> chain_;
  size_t first_ = 0;
  std::vector<ibv_sge> sges_;
  std::vector<std::byte> bytes_;  // inline data and TSO headers
  std::unique_ptr<WrRecording> batch_;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFERRED_POST_H_
