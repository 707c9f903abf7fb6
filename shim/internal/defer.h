// The defer latency mode (VERBSEMU_LATENCY_MODE=defer). A post returns at
// once; a copy of it (deferred_post.h) waits in its QP's FIFO and is handed
// to the provider when due: the latency later, in order, so a thread keeps
// its message rate and its overlap of communication with computation, where
// a spin (InterSense) holds it for the whole latency. Held posts are handed
// over by the application's own calls (a post on the QP, a poll of any CQ
// of its context, arming a CQ, waiting on a channel) and by a progress
// thread for applications that block instead, and handed over as far as
// the provider has room before ibv_modify_qp, ibv_destroy_qp and exit.
// No WR is lost: what a move to ERR finds held completes with
// IBV_WC_WR_FLUSH_ERR, and a WR the provider refuses after its post
// returned with IBV_WC_LOC_QP_OP_ERR (defer_synth.h); only a destroyed or
// reset QP, or an exiting process, drops what is left, counted.
//
// Send-queue accounting: the provider holds none of the held WRs, so an
// application within its own send-queue depth never meets ENOMEM at the
// hand-over; the shim answers ENOMEM when the FIFO alone holds max_send_wr
// WRs. What the provider would refuse in the post itself (defer_sq.h: mlx5
// before RTS, too many SGEs, inline data above the QP's limit) the post
// refuses at once, with the provider's errno and *bad_wr. A hand-over the
// provider refuses with ENOMEM is retried while the WRs the provider holds
// fill the send queue (polled completions tell the shim how many it
// holds); otherwise, as for any other refusal after the post returned,
// its WRs are counted, warned about once, and complete in error, as their
// post would have failed.
//
// With MLX5_SINGLE_THREADED=1 or MLX4_SINGLE_THREADED=1 the provider takes
// no locks, and QPs of one context share a doorbell register: no thread of
// the shim's own may post for the application, so every QP spins instead
// (the report says so).
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "shim/internal/defer_queue.h"
#include "shim/internal/post_shape.h"
#include "shim/internal/ptr_map.h"
#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {

struct QpState;

// The defer mode's part of the shim's state (Engine::defer).
struct DeferState {
  bool on = false;              // configured: latency mode defer, and emulating
  PtrMap<DeferList> lists{10};  // per send CQ
  std::vector<std::unique_ptr<DeferList>> list_owner;  // under Engine::mu
  std::unordered_set<const ibv_pd*> td_pds;  // under Engine::mu: lock-free
  // "MLX5_SINGLE_THREADED=1" (or MLX4_'s) when set and deferring: the
  // provider takes no locks, so no QP defers.
  std::string lock_free_provider;
  DeferCounters counts;
};

// At registration, caller holds E().mu: gives `q` its FIFO and puts it on
// its send CQ's list, or notes why it spins. `cap`: the QP's send queue as
// the provider reported it; `sig_all`: every WR is signaled (or not known).
void SetUpDeferLocked(QpState* q, const ibv_qp_cap& cap, bool sig_all);
// After a successful ibv_modify_qp to `state`.
void DeferQpStateChanged(QpState* q, ibv_qp_state state);

// ibv_post_send on a deferring QP: queues a copy of the chain, due at
// `due`, and its peer's ingress still to reserve, `late` (DeferredDueTime).
// Returns 0, or ENOMEM/EINVAL with `*bad_wr` the first WR not taken (the
// ones before it are queued). `lane`: a UD post's destination class (its
// latency law; defer_order.h), null otherwise.
int DeferPostSend(QpState* q, ibv_send_wr* wr, ibv_send_wr** bad_wr,
                  uint64_t entered, uint64_t due, const LateIngress& late,
                  const void* lane = nullptr);
// ibv_wr_complete of a recorded batch on a deferring QP: the recording in
// `*slot` moves to the FIFO (a closed one comes back in its place).
int DeferBatch(QpState* q, std::unique_ptr<WrRecording>* slot, uint64_t entered,
               uint64_t due, const LateIngress& late, const PostShape& shape);

// ibv_poll_cq: the deferring QPs of the context of `cq` (null: none), and
// the hand-over of their posts due by `now`.
DeferList* ListOf(const ibv_cq* cq);
void DrainDueOnPoll(DeferList* list, uint64_t now);
// After the provider's poll of `cq` returned `n` of the `num_entries`
// asked into `wc`: its send completions free the send queues of their QPs
// in `list` (null: none), and the shim's own completions for `cq`
// (defer_synth.h) follow when the provider's came back short. Returns the
// total.
// `poll` is the provider's poll, which it calls again before it adds any:
// a completion of the provider's made before the shim's is returned first.
int AfterPoll(DeferList* list, ibv_cq* cq, int num_entries, ibv_wc* wc, int n,
              int (*poll)(ibv_cq*, int, ibv_wc*));
// The provider's completions `wc` (n of them) were polled: its successful
// send completions free the send queues of their QPs in `list`.
void NoteSendCompletions(DeferList* list, const ibv_wc* wc, int n);
// Moves up to `n` of the shim's own completions for `cq` into `wc`, oldest
// first, as a poll returns them (their QPs' later posts may go again).
int TakeSynthetic(DeferList* list, const ibv_cq* cq, int n, ibv_wc* wc);
// An application about to block (ibv_get_cq_event, ibv_req_notify_cq on
// `context`, null: every context): what is due is handed over now, and the
// progress thread is told nobody polls there, so it hands over each post
// when due.
void DeferBeforeBlock(const ibv_context* context);
// `cq` is being destroyed: the shim's completions for it go too.
void DeferForgetCq(const ibv_cq* cq);
// `cq` is an extended CQ whose polls the shim could not wrap (cq_ex_poll.h),
// which the shim's own completions never reach: a WR that would get one
// there is dropped, counted (its QP's later posts must not wait for a poll
// that never returns it).
void DeferNoteExtendedCq(const ibv_cq* cq);

// Why held posts go before they are due (the report counts each).
// kGone: the QP was destroyed where the shim could not see it (its address
// now names another QP): what it held is dropped, never handed over.
enum class FlushReason : uint8_t { kModify, kDestroy, kExit, kGone };
// Every held post of `q` goes to the provider now, as far as it has room
// (kGone: none does). What is left stays for kModify (handed over later,
// or completed with a flush error if the modify moves the QP to ERR), and
// is dropped, counted, for the others.
void FlushDeferred(QpState* q, FlushReason why);
// The same with the QP's queue lock held.
void FlushDeferredLocked(QpState* q, DeferQueue& d, FlushReason why);
// A QP leaving (retired; caller holds E().mu): off its CQ's list, so no
// drainer reaches it again; and back on it when the provider refused to
// destroy it.
void LeaveDeferList(QpState* q);
void RejoinDeferList(QpState* q);
// At exit (atexit, registered with the progress thread): stops the progress
// thread and flushes every QP.
void FlushAllDeferred();

// Inside the defer mode (defer*.cc): hands over `q`'s posts due by `now`
// (all with kNeverDue), caller holding its queue's lock; and every QP's of
// `list` (taking the locks).
size_t DrainLocked(QpState* q, DeferQueue& d, uint64_t now);
size_t DrainList(DeferList& list, uint64_t now);

// Tests: stops the progress thread, forgets every CQ list (E().mu held).
void ResetDeferLocked();
// In a forked child: the parent's held posts are the parent's to send, and
// its locks may have been held by a thread the child does not have.
void DeferAfterForkInChild();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_H_
