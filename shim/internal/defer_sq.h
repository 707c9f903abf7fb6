// The defer mode's view of a QP's send queue (defer.h): what the provider
// would refuse in the post itself, so that the shim's post refuses it at
// once with the provider's errno rather than holding a WR the provider will
// never take; and how many WRs the provider holds, so that an ENOMEM at a
// hand-over is told apart: a full send queue (retried later) or a refusal.
//
// Refusals, as rdma-core v44 and v50 make them:
// - mlx5 (providers/mlx5/qp.c): ENOMEM for every WR until the QP first
//   reached RTS after its creation or a RESET, for more SGEs than
//   max_send_sge and for inline data above max_inline_data; an ibv_wr_*
//   batch before RTS gets EINVAL from wr_complete (its error variant), and
//   the setters' ENOMEM comes from wr_complete too.
// - mlx4: ENOMEM for the SGE and inline limits; no state check.
// - rxe and the others: EINVAL for the SGE and inline limits.
// The provider is told by the device's name (mlx5_0, mlx5_bond_0, mlx4_0).
// A cap the provider reported as 0 (not known: a QP adopted without its
// caps) is bounded by kUnknownCaps, with EINVAL beyond (ENOMEM for the
// depth), so a bogus length can never make the shim copy without bound.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_SQ_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_SQ_H_

#include <errno.h>
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string_view>

namespace verbsemu::shim::internal {

class WrRecording;

struct PostRules {
  int sge_errno = EINVAL;
  int inline_errno = EINVAL;
  bool needs_rts = false;  // mlx5: nothing is posted before RTS

  static PostRules ForDevice(std::string_view device_name);
};

// The provider's send queue as the shim sees it: WRs handed over, and how
// far polled send completions have freed it (a signaled WR's completion
// frees it and the unsignaled WRs before it, as mlx5 counts).
class SqWindow {
 public:
  // Before a post to the provider: its signaled WRs are at the offsets in
  // `signaled_at` (each 1 + its index, ascending). Noted first, so that a
  // completion another thread polls before Took is not missed.
  void Offer(const uint32_t* signaled_at, size_t signaled);
  // After it: the provider took the post's first `went` WRs.
  void Took(size_t went);
  // One successful send completion of this QP was polled.
  void Completed();
  // A move to RESET empties the provider's send queue.
  void Emptied();
  // WRs the provider holds as far as the shim knows: never fewer than it
  // really holds (a completion the shim did not see keeps its WRs counted).
  // kUnknown once completions were missed (polled through ibv_cq_ex) or
  // more were signaled than a send queue holds.
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  uint64_t Outstanding();
  void set_depth(uint32_t max_send_wr) { depth_ = max_send_wr; }

 private:
  std::mutex mu_;
  uint32_t depth_ = 0;
  uint64_t handed_ = 0;         // under mu_
  size_t offered_ = 0;          // under mu_: marks the last Offer pushed
  uint64_t freed_ = 0;          // under mu_
  std::deque<uint64_t> marks_;  // under mu_: handed_ after each signaled WR
  bool blind_ = false;          // under mu_
};

// The bounds a cap not known gets: the FIFO's depth, SGEs per WR, and
// inline bytes per WR.
inline constexpr ibv_qp_cap kUnknownCaps = {.max_send_wr = 16384,
                                            .max_recv_wr = 0,
                                            .max_send_sge = 1024,
                                            .max_recv_sge = 0,
                                            .max_inline_data = 4096};

// What the defer mode checks of a QP before it takes a post.
struct SqLimits {
  uint32_t max_send_wr = 0;  // 0: not known
  uint32_t max_send_sge = 0;
  uint32_t max_inline_data = 0;
  PostRules rules;
  bool reached_rts = true;  // since creation or the last RESET
};

// The first WR of `wr` the provider would refuse, given `held` WRs already
// in the shim's FIFO (ENOMEM beyond a send queue's worth), with its errno
// in `*rc`; nullptr when it would take them all.
const ibv_send_wr* FirstRefused(const SqLimits& l, size_t held,
                                const ibv_send_wr* wr, int* rc);
// What wr_complete would answer for the recorded batch `r` of `wrs` WRs,
// given `held` WRs in the FIFO: 0 when the provider would take it.
int BatchRefusal(const SqLimits& l, size_t held, const WrRecording& r,
                 size_t wrs);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_SQ_H_
