// What one post (an ibv_post_send chain or an ibv_wr_* batch) moves, by
// direction. Sends and writes carry data out; an RDMA READ's data, and an
// atomic's 8-byte result, come back in, and its completion needs the
// request to go out and the response to come back: two one-way latencies.
#ifndef VERBSEMU_SHIM_INTERNAL_POST_SHAPE_H_
#define VERBSEMU_SHIM_INTERNAL_POST_SHAPE_H_

#include <infiniband/verbs.h>

#include <cstdint>

namespace verbsemu::shim::internal {

enum class Flow : uint8_t {
  kOut,   // send, write, atomic write: this side's data crosses the link
  kIn,    // read, compare-and-swap, fetch-and-add: the peer's data comes back
  kNone,  // local invalidate, memory-window bind: no data
};

inline Flow FlowOf(ibv_wr_opcode op) {
  switch (op) {
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
      return Flow::kIn;
    case IBV_WR_LOCAL_INV:
    case IBV_WR_BIND_MW:
      return Flow::kNone;
    default:
      return Flow::kOut;
  }
}

struct PostShape {
  uint64_t wrs = 0;
  uint64_t out_bytes = 0;
  uint64_t in_bytes = 0;
  bool round_trip = false;  // a READ or an atomic is in it
  Flow flow = Flow::kOut;   // of the WR being built (ibv_wr_* batches)
  // One-way latencies already waited before the post was built (ibv_wr_*
  // batches wait one at wr_start, outside the provider's send-queue lock).
  uint8_t legs_waited = 0;
  uint64_t ticks_waited = 0;

  // One-way latencies the post still owes before it reaches the device.
  uint64_t LegsOwed() const {
    const uint64_t legs = round_trip ? 2 : 1;
    return legs > legs_waited ? legs - legs_waited : 0;
  }

  uint64_t bytes() const { return out_bytes + in_bytes; }
  // One more WR; its data follows in AddBytes.
  void Begin(Flow f) {
    ++wrs;
    flow = f;
    round_trip = round_trip || f == Flow::kIn;
  }
  void AddBytes(uint64_t b) {
    if (flow == Flow::kOut) out_bytes += b;
    if (flow == Flow::kIn) in_bytes += b;
  }
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_POST_SHAPE_H_
