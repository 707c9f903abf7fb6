// When the round trips post receives again. A round that receives a send
// consumes one receive on that endpoint; the side that replied posts it
// again right after its reply went out, where the post overlaps the reply's
// flight and the other side's turn. Topping up half a queue at once instead
// (rq_depth/2 = 128 ibv_post_recv calls every 128 rounds) kept the replier
// busy past the next message's arrival: the round after each batch was
// slower, a tail every 128 iterations.
#ifndef VERBSBENCH_INTERNAL_RECV_REPOST_H_
#define VERBSBENCH_INTERNAL_RECV_REPOST_H_

#include <cstdint>

namespace verbsbench::internal {

// Posts on endpoint i the receives consumed since the queue was last full
// (one after a send round, none after RDMA write or read).
template <class Path>
void RepostConsumedRecvs(Path& path, int i) {
  const uint32_t missing = path.RecvsMissing(i);
  if (missing > 0) path.PostRecvs(i, missing);
}

// The same for the UD QP of the list-posted round: the receives its
// replies (root) or the root's message (peer) consumed.
template <class Path>
void RepostConsumedUdRecvs(Path& path) {
  const uint32_t missing = path.UdRecvsMissing();
  if (missing > 0) path.PostUdRecvs(missing);
}

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_RECV_REPOST_H_
