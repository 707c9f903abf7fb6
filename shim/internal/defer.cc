#include "shim/internal/defer.h"

#include <errno.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "emulate/tsc.h"
#include "shim/internal/defer_progress.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

std::unique_ptr<DeferredPost> TakeSpare(DeferQueue& d) {
  if (d.spare.empty()) return std::make_unique<DeferredPost>();
  std::unique_ptr<DeferredPost> p = std::move(d.spare.back());
  d.spare.pop_back();
  return p;
}

// A refusal that may mean a full send queue (QueueFull tells): the post
// then stays and is handed over again later.
bool IsRoomRefusal(int rc) { return rc == ENOMEM || rc == EAGAIN; }

void WarnRefused(int rc, size_t wrs) {
  if (!FirstTime(WarningCode::kDeferRefused)) return;
  Warn(WarningCode::kDeferRefused, {std::to_string(wrs), std::strerror(rc)});
}

// kAgain: the front post's first WR was refused and completed in error;
// the rest of the post is still to hand over.
enum class HandOver { kDone, kAgain, kNoRoom, kBusy };

// Replays a held batch under the QP's batch lock, which keeps the
// application from building a batch on it meanwhile (both write the
// ibv_qp_ex's wr_id and wr_flags). Never waits for it, and never tries it
// when this very thread holds it (polling between wr_start and
// wr_complete): the batch stays, to be replayed later.
int ReplayBatch(QpState* q, DeferredPost& p, bool* busy) {
  *busy = q->batch_mu.HeldByMe();
  if (*busy) return 0;
  std::unique_lock<OwnedMutex> lock(q->batch_mu, std::try_to_lock);
  *busy = !lock.owns_lock();
  if (*busy) return 0;
  return p.batch()->Replay(q->qpx, /*close_on_room_refusal=*/false);
}
// The offsets (1 + index) of `p`'s signaled WRs, into d.signaled_scratch,
// before a hand-over consumes them. Caller holds d.mu.
void NoteSignaled(DeferQueue& d, DeferredPost& p) {
  std::vector<uint32_t>& at = d.signaled_scratch;
  at.clear();
  const auto wrs = static_cast<uint32_t>(p.wrs());
  if (d.sig_all) {
    for (uint32_t i = 1; i <= wrs; ++i) at.push_back(i);
  } else if (p.is_batch()) {
    at = p.batch()->signaled_at;
  } else {
    uint32_t i = 0;
    for (const ibv_send_wr* w = p.chain(); w != nullptr; w = w->next) {
      ++i;
      if ((w->send_flags & IBV_SEND_SIGNALED) != 0) at.push_back(i);
    }
  }
}

// Whether an ENOMEM (or EAGAIN) at a hand-over can be a full send queue:
// only while the WRs the provider holds fill it: at most `out_before`
// (counted before the post; completions polled since only lower it) and
// the `went` it took in that post. The held WRs behind the refused one are
// not the provider's. Otherwise the provider refused the WR for good (mlx5
// answers ENOMEM for a QP not at RTS, for too many SGEs and for inline data
// above its limit), and retrying it would hold the QP's later posts behind
// it forever. A QP whose depth is not known is retried.
bool QueueFull(const DeferQueue& d, uint64_t out_before, size_t went) {
  if (d.limits.max_send_wr == 0 || out_before == SqWindow::kUnknown) {
    return true;
  }
  return out_before + went >= d.limits.max_send_wr;
}

// Per-destination order (defer_order.h): the first `n` WRs `p` holds leave
// the shim's hands without a completion.
void Settle(DeferQueue& d, DeferredPost& p, size_t n) {
  if (d.order == nullptr) return;
  for (size_t i = 0; i < n; ++i) d.order->Completed(p.seq++, nullptr);
}

// Queues an error completion (defer_synth.h) for the first `n` WRs `p`
// holds; `batch`: p held a batch (its recording's wr_ids, which outlive
// the replay that closed it).
void CompleteInError(QpState* q, DeferQueue& d, DeferredPost& p, bool batch,
                     size_t n, ibv_wc_status status, int err) {
  const uint64_t end = p.seq + n;  // per-destination order: p's WRs' numbers
  const ibv_cq* cq = q->qp->send_cq;
  if (cq == nullptr || d.list == nullptr || IsExtendedCq(cq)) {
    if (cq != nullptr && d.list != nullptr) E().defer.counts.dropped_wrs.Add(n);
    Settle(d, p, n);
    return;
  }
  // With per-destination order the completion goes out in post order
  // (defer_order.h); otherwise the QP's later posts wait until it was
  // polled.
  auto add = [&](uint64_t wr_id) {
    const ibv_wc wc = ErrorCompletion(wr_id, q->qpn, status, err);
    if (d.order != nullptr) {
      d.order->Completed(p.seq++, &wc);
      return;
    }
    d.synth_owed.fetch_add(1);
    d.list->synth.Add(cq, wc);
  };
  if (batch) {
    const std::vector<uint64_t>& ids = p.batch()->wr_ids;
    for (size_t i = 0; i < n && i < ids.size(); ++i) add(ids[i]);
  } else {
    const ibv_send_wr* w = p.chain();
    for (size_t i = 0; i < n && w != nullptr; ++i, w = w->next) add(w->wr_id);
  }
  if (d.order != nullptr) Settle(d, p, end - p.seq);
}

// The post at `at` left the FIFO (`now`: when its hand-over began).
void RetireAt(QpState* q, DeferQueue& d, size_t at, uint64_t now) {
  Engine& e = E();
  DeferredPost& p = *d.fifo[at];
  q->stats.delay_ticks.Add(now - p.entered);
  if (e.note_lateness) {
    e.lateness.Add(now - p.entered, now > p.due ? now - p.due : 0);
  }
  e.defer.counts.handed_posts.Add(1);
  p.Clear();
  const auto it = d.fifo.begin() + static_cast<std::ptrdiff_t>(at);
  d.spare.push_back(std::move(*it));
  d.fifo.erase(it);
}

// The front post's WRs, held when the QP moved to ERR: each completes with
// a flush error, as the provider would have flushed it.
void FlushFront(QpState* q, DeferQueue& d, uint64_t now) {
  DeferredPost& p = *d.fifo.front();
  const size_t held = p.wrs();
  CompleteInError(q, d, p, p.is_batch(), held, IBV_WC_WR_FLUSH_ERR, 0);
  E().defer.counts.flushed_wrs.Add(held);
  d.held_wrs -= std::min(d.held_wrs, held);
  RetireAt(q, d, 0, now);
}

// Hands the post at `at` to the provider; on kNoRoom and kBusy what the
// provider did not take stays. A WR it refuses for good (not for room)
// completes in error: a batch whole (the provider rolled it back), a
// chain's refused WR alone, the ones after it offered again.
HandOver HandOverAt(QpState* q, DeferQueue& d, size_t at) {
  Engine& e = E();
  // When the hand-over began, as a spin's wait ends before its post: a
  // soft provider's post can take a long time itself (rxe processes the
  // send in the posting call).
  const uint64_t now = emulate::ReadTsc();
  DeferredPost& p = *d.fifo[at];
  const size_t held = p.wrs();
  const bool batch = p.is_batch();
  size_t went = held;
  int rc = 0;
  NoteSignaled(d, p);
  const uint64_t out_before = d.sq.Outstanding();
  d.sq.Offer(d.signaled_scratch.data(), d.signaled_scratch.size());
  if (d.order != nullptr) d.order->Offer(p.seq, held);
  if (batch) {
    bool busy = false;
    rc = ReplayBatch(q, p, &busy);
    if (busy) {
      d.sq.Took(0);
      if (d.order != nullptr) d.order->Took(0);
      return HandOver::kBusy;
    }
    if (rc != 0) went = 0;  // the provider rolled the batch back
  } else if (p.chain() != nullptr) {
    ibv_send_wr* bad = nullptr;
    rc = q->ctx->post_send(q->qp, p.chain(), &bad);
    if (rc != 0) went = p.KeepFrom(bad);
  }
  d.sq.Took(went);
  if (d.order != nullptr) {
    d.order->Took(went);
    p.seq += went;
  }
  if (rc != 0 && IsRoomRefusal(rc) && QueueFull(d, out_before, went)) {
    d.held_wrs -= std::min(d.held_wrs, went);
    e.defer.counts.room_retries.Add(1);
    return HandOver::kNoRoom;
  }
  if (rc != 0) {
    const size_t refused = batch ? held : 1;
    CompleteInError(q, d, p, batch, refused, IBV_WC_LOC_QP_OP_ERR, rc);
    e.defer.counts.refused_wrs.Add(refused);
    WarnRefused(rc, refused);
    d.held_wrs -= std::min(d.held_wrs, went + refused);
    if (!batch) p.DropFront();
    if (!batch && p.wrs() > 0) return HandOver::kAgain;
    RetireAt(q, d, at, now);
    return HandOver::kDone;
  }
  d.held_wrs -= std::min(d.held_wrs, held);
  RetireAt(q, d, at, now);
  return HandOver::kDone;
}

// Queues `p` (filled, under d.mu) and tells the drainers.
void Push(DeferQueue& d, std::unique_ptr<DeferredPost> p) {
  // Whether it goes next when due: nothing held, or (per-destination
  // order) nothing held it may not pass.
  bool head = d.fifo.empty();
  if (d.order != nullptr) {
    head = std::all_of(d.fifo.begin(), d.fifo.end(),
                       [](const auto& held) { return held->all_signaled; });
    p->due = LaneDue(d, p->lane, p->due);
    NoteSignaled(d, *p);
    p->all_signaled = d.signaled_scratch.size() == p->wrs();
    p->seq = d.order->Posted(d.signaled_scratch.data(),
                             d.signaled_scratch.size(), p->wrs());
  } else {
    p->due = std::max(p->due, d.last_due);
    d.last_due = p->due;
  }
  d.held_wrs += p->wrs();
  const uint64_t due = p->due;
  const bool first = d.fifo.empty();
  d.fifo.push_back(std::move(p));
  if (!head) return;
  if (first) {
    d.head_due.store(due);
  } else {
    LowerTo(&d.head_due, due);
  }
  if (d.list != nullptr) LowerTo(&d.list->earliest, due);
  Progress().Notify(due);
}

// A QP moved to RTS by a modify the shim did not see (through a privately
// loaded libibverbs, which still updates ibv_qp::state) is not refused as
// if it had never got there. Caller holds d.mu.
void NoteUnseenRts(const QpState* q, DeferQueue& d) {
  if (d.limits.reached_rts) return;
  const ibv_qp_state s = q->qp->state;
  if (s >= IBV_QPS_RTS && s != IBV_QPS_UNKNOWN) d.limits.reached_rts = true;
}

// Per-destination order: each held post due by `now` goes, in post order,
// passing the ones not yet due that may be passed. Caller holds d.mu.
size_t DrainLanesLocked(QpState* q, DeferQueue& d, uint64_t now) {
  size_t handed = 0;
  size_t at = 0;
  while (at < d.fifo.size() && d.synth_owed.load() <= 0) {
    const DeferredPost& p = *d.fifo[at];
    if (p.due > now) {
      if (!p.all_signaled) break;
      ++at;
      continue;
    }
    const HandOver h = HandOverAt(q, d, at);
    if (h == HandOver::kNoRoom || h == HandOver::kBusy) break;
    if (h == HandOver::kDone) ++handed;  // the next one is at `at` now
  }
  d.head_due.store(d.synth_owed.load() > 0 ? kNeverDue : NextDue(d));
  return handed;
}

// A post owing its flow a booking is queued on it (fabric_flows.h).
void CountQueued(QpState* q, const LateIngress& late) {
  if (late.bytes == 0) return;
  if (FlowSlot* flow = q->flow.get()) NoteQueued(*flow, emulate::ReadTsc());
}

// The front post, due by `now`, reserves its peer's ingress if it still
// owes it (LateIngress): from when its first byte left its egress (cut
// through), which is when it became due for this (DeferredDueTime), so the
// ingress serves the senders into it in the order their WRs reach it, and
// in turns at a tie (IngressLink::TurnWait: a QP that booked last looks
// again a little after the ingress frees). True when the reservation, its
// egress or its turn makes it due after `now`. Caller holds d.mu.
bool BookLateIngress(QpState* q, DeferQueue& d, uint64_t now) {
  DeferredPost& p = *d.fifo.front();
  // Most posts owe nothing: one test on the drain's path.
  if (p.late.bytes == 0) return false;
  if (FlowSlot* flow = q->flow.get()) {
    // The next look, earlier or later than the last (a booking re-rated).
    // The posts behind wait for this one's hand-over, not for its due: the
    // flow's own bookings follow each other (FlowDue).
    const uint64_t look = FlowDue(q, *flow, &p.late, now);
    if (look == 0) return false;
    p.due = look;
    return true;
  }
  IngressLink* in = q->ingress_peer.load(std::memory_order_acquire);
  const uint64_t me = in != nullptr ? BookerName(*q) : 0;
  if (in != nullptr && now != kNeverDue) {
    if (const uint64_t again = in->TurnWait(me, now, p.late.bytes)) {
      p.due = again;
      return true;
    }
  }
  const LateIngress late = std::exchange(p.late, LateIngress{});
  if (now == kNeverDue) return false;
  // Looked at when its first byte left its egress: it goes at the later of
  // its egress's due and its ingress's.
  uint64_t due = late.due;
  if (in != nullptr) {
    due = std::max(due,
                   in->Book(me, late.start, late.bytes) + late.latency_ticks);
  }
  if (due <= p.due) return false;
  p.due = due;
  d.last_due = std::max(d.last_due, p.due);
  return p.due > now;
}

}  // namespace

// Hands over the posts due by `now` (all of them when `now` is kNeverDue).
// Caller holds d.mu.
size_t DrainLocked(QpState* q, DeferQueue& d, uint64_t now) {
  if (d.order != nullptr) return DrainLanesLocked(q, d, now);
  size_t handed = 0;
  // After a refusal the QP's later posts wait until its error completions
  // were polled: the provider's completions of them would come first.
  while (!d.fifo.empty() && d.fifo.front()->due <= now &&
         d.synth_owed.load() <= 0) {
    if (BookLateIngress(q, d, now)) break;
    const HandOver h = HandOverAt(q, d, 0);
    if (h == HandOver::kNoRoom || h == HandOver::kBusy) break;
    if (h == HandOver::kDone) ++handed;
  }
  // A QP owing error completions is no drainer's until they were polled
  // (defer_poll.cc Repaid makes it due again).
  d.head_due.store(d.fifo.empty() || d.synth_owed.load() > 0
                       ? kNeverDue
                       : d.fifo.front()->due);
  return handed;
}

size_t DrainList(DeferList& c, uint64_t now) {
  std::lock_guard<std::mutex> lock(c.mu);
  c.earliest.store(kNeverDue);
  size_t handed = 0;
  for (QpState* q : c.qps) {
    DeferQueue& d = *q->defer;
    if (d.head_due.load() <= now) {
      std::lock_guard<std::mutex> qlock(d.mu);
      handed += DrainLocked(q, d, now);
    }
    LowerTo(&c.earliest, d.head_due.load());
  }
  return handed;
}

int DeferPostSend(QpState* q, ibv_send_wr* wr, ibv_send_wr** bad_wr,
                  uint64_t entered, uint64_t due, const LateIngress& late,
                  const void* lane) {
  DeferQueue& d = *q->defer;
  const AppCall call(d.list, entered);
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.head_due.load() <= entered) DrainLocked(q, d, entered);
  NoteUnseenRts(q, d);
  int rc = 0;
  const ibv_send_wr* stop = FirstRefused(d.limits, d.held_wrs, wr, &rc);
  if (stop != wr) {
    std::unique_ptr<DeferredPost> p = TakeSpare(d);
    p->CopyChain(wr, stop);
    p->entered = entered;
    p->due = due;
    p->late = late;
    p->lane = lane;
    CountQueued(q, late);
    Push(d, std::move(p));
  }
  if (rc != 0) {
    *bad_wr = const_cast<ibv_send_wr*>(stop);
    E().defer.counts.refused_at_post.Add(1);
  }
  return rc;
}

int DeferBatch(QpState* q, std::unique_ptr<WrRecording>* slot, uint64_t entered,
               uint64_t due, const LateIngress& late, const PostShape& shape) {
  DeferQueue& d = *q->defer;
  const AppCall call(d.list, entered);
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.head_due.load() <= entered) DrainLocked(q, d, entered);
  NoteUnseenRts(q, d);
  const int rc = BatchRefusal(d.limits, d.held_wrs, **slot, shape.wrs);
  if (rc != 0) {
    (*slot)->Close();
    E().defer.counts.refused_at_post.Add(1);
    return rc;
  }
  std::unique_ptr<DeferredPost> p = TakeSpare(d);
  p->TakeBatch(slot);
  p->shape = shape;
  p->entered = entered;
  p->due = due;
  p->late = late;
  p->lane = kBatchLane;
  CountQueued(q, late);
  Push(d, std::move(p));
  return 0;
}

// Every held post of `q` leaves without reaching the provider (a QP
// destroyed, reset, gone, or a process exiting), counted. Caller holds d.mu.
void DropHeldLocked(QpState* q, DeferQueue& d) {
  E().defer.counts.dropped_wrs.Add(d.held_wrs);
  // None of them will be booked on its flow.
  if (FlowSlot* flow = q->flow.get()) flow->queued.store(0);
  for (auto& p : d.fifo) {
    Settle(d, *p, p->wrs());
    p->Clear();
  }
  d.fifo.clear();
  d.held_wrs = 0;
  d.head_due.store(kNeverDue);
}

void DeferQpStateChanged(QpState* q, ibv_qp_state state) {
  if (q == nullptr || q->defer == nullptr) return;
  DeferQueue& d = *q->defer;
  std::lock_guard<std::mutex> lock(d.mu);
  if (state == IBV_QPS_RESET) {
    // A move to RESET removes the send queue's WRs without completions.
    d.limits.reached_rts = false;
    d.sq.Emptied();
    if (d.order != nullptr) d.order->Clear();
    if (!d.fifo.empty()) DropHeldLocked(q, d);
  } else if (state == IBV_QPS_ERR) {
    // The provider flushed what it held; what the shim holds is flushed
    // here, in order after it. Later posts go to the provider, which
    // flushes them, once these completions were polled.
    const uint64_t now = emulate::ReadTsc();
    while (!d.fifo.empty()) FlushFront(q, d, now);
    d.head_due.store(kNeverDue);
    if (FlowSlot* flow = q->flow.get()) flow->queued.store(0);
  } else if (state == IBV_QPS_RTS) {
    d.limits.reached_rts = true;
  }
}

void FlushDeferred(QpState* q, FlushReason why) {
  if (q == nullptr || q->defer == nullptr) return;
  DeferQueue& d = *q->defer;
  std::lock_guard<std::mutex> lock(d.mu);
  FlushDeferredLocked(q, d, why);
}

void FlushDeferredLocked(QpState* q, DeferQueue& d, FlushReason why) {
  if (d.fifo.empty()) return;
  Engine& e = E();
  if (why == FlushReason::kGone) {
    Warn(WarningCode::kDeferDropped, {std::to_string(d.held_wrs)});
    DropHeldLocked(q, d);
    return;
  }
  const size_t before = d.fifo.size();
  DrainLocked(q, d, kNeverDue);
  const size_t early = before - d.fifo.size();
  (why == FlushReason::kModify    ? e.defer.counts.early_modify
   : why == FlushReason::kDestroy ? e.defer.counts.early_destroy
                                  : e.defer.counts.early_exit)
      .Add(early);
  // A modify keeps what the provider had no room for (or what waits for a
  // batch lock): it is handed over later, or flushed if the QP moves to
  // ERR. A QP going away, or a process exiting, takes it with it.
  if (why != FlushReason::kModify && !d.fifo.empty()) DropHeldLocked(q, d);
}

}  // namespace verbsemu::shim::internal
