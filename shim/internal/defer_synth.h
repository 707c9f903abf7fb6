// Completions the defer mode makes itself (defer.h). A WR the application
// posted that can no longer reach the provider still completes exactly
// once, as it would in a native run: held when its QP moved to ERR, it
// completes with IBV_WC_WR_FLUSH_ERR (a provider flushes what its send
// queue holds); refused by the provider after its post had returned (a
// native post would have failed), with a local error, IBV_WC_LOC_QP_OP_ERR,
// the provider's errno in vendor_err. Error completions are made for
// signaled and unsignaled WRs alike, as providers make flush completions.
//
// They wait in their context's queue, by CQ, and ibv_poll_cq hands them out
// after what the provider returned, once the provider's own CQ came back
// short of what the application asked for: the provider's completions of
// the QP's earlier WRs go first.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_SYNTH_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_SYNTH_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

namespace verbsemu::shim::internal {

class SyntheticCompletions {
 public:
  // Queues a completion for `cq`.
  void Add(const ibv_cq* cq, const ibv_wc& wc);
  // Moves up to `n` of `cq`'s completions, oldest first, into `wc`.
  int Take(const ibv_cq* cq, int n, ibv_wc* wc);
  // Whether any are queued (for any CQ); a hint read without the lock.
  bool Empty() const { return pending_.load(std::memory_order_acquire) == 0; }
  // The same without ordering, for an idle poll's fast path: a completion
  // queued meanwhile is returned by a later poll.
  bool EmptyRelaxed() const {
    return pending_.load(std::memory_order_relaxed) == 0;
  }
  // How many are queued for `cq`.
  size_t PendingFor(const ibv_cq* cq);
  // Forgets the ones for `cq` (it is being destroyed).
  void Forget(const ibv_cq* cq);

 private:
  struct Entry {
    const ibv_cq* cq;
    ibv_wc wc;
  };
  std::atomic<size_t> pending_{0};
  std::mutex mu_;
  std::deque<Entry> queue_;  // under mu_
};

// The process's extended CQs (registry: their creation, destruction).
void NoteExtendedCq(const ibv_cq* cq);
void ForgetExtendedCq(const ibv_cq* cq);
bool IsExtendedCq(const ibv_cq* cq);

// The error completion of WR `wr_id` of QP `qp_num`.
ibv_wc ErrorCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_status status,
                       int err);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_SYNTH_H_
