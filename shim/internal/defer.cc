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

// Lowers `*at` to `due` unless it is already earlier.
void LowerTo(std::atomic<uint64_t>* at, uint64_t due) {
  uint64_t seen = at->load();
  while (due < seen && !at->compare_exchange_weak(seen, due)) {
  }
}

std::unique_ptr<DeferredPost> TakeSpare(DeferQueue& d) {
  if (d.spare.empty()) return std::make_unique<DeferredPost>();
  std::unique_ptr<DeferredPost> p = std::move(d.spare.back());
  d.spare.pop_back();
  return p;
}

// A resource refusal (the send queue is full): the post stays and is
// handed over again later.
bool IsRoomRefusal(int rc) { return rc == ENOMEM || rc == EAGAIN; }

void WarnRefused(int rc, size_t wrs) {
  Engine& e = E();
  if (e.warned_defer_refused.exchange(true)) return;
  Warn("defer: the provider refused " + std::to_string(wrs) +
       " WR(s) after their post had returned (" + std::strerror(rc) +
       "); they were dropped, as their post would have failed (counted in "
       "the report)");
}

enum class HandOver { kDone, kNoRoom, kBusy };

// Replays a held batch under the QP's batch lock, which keeps the
// application from building a batch on it meanwhile (both write the
// ibv_qp_ex's wr_id and wr_flags). Never waits for it: its holder may be
// this very thread, polling between wr_start and wr_complete.
int ReplayBatch(QpState* q, DeferredPost& p, bool* busy) {
  std::unique_lock<std::mutex> lock(q->batch_mu, std::try_to_lock);
  *busy = !lock.owns_lock();
  if (*busy) return 0;
  return p.batch()->Replay(q->qpx, /*close_on_room_refusal=*/false);
}

// Hands the front post to the provider; on kNoRoom and kBusy what the
// provider did not take stays at the front.
HandOver HandOverFront(QpState* q, DeferQueue& d) {
  Engine& e = E();
  DeferredPost& p = *d.fifo.front();
  const size_t held = p.wrs();
  size_t went = held;
  int rc = 0;
  // When the hand-over began, as a spin's wait ends before its post: a
  // soft provider's post can take a long time itself (rxe processes the
  // send in the posting call).
  const uint64_t now = emulate::ReadTsc();
  if (p.is_batch()) {
    bool busy = false;
    rc = ReplayBatch(q, p, &busy);
    if (busy) return HandOver::kBusy;
    if (rc != 0) went = 0;  // the provider rolled the batch back
  } else if (p.chain() != nullptr) {
    ibv_send_wr* bad = nullptr;
    rc = q->ctx->post_send(q->qp, p.chain(), &bad);
    if (rc != 0) went = p.KeepFrom(bad);
  }
  const bool no_room = rc != 0 && IsRoomRefusal(rc);
  d.held_wrs -= std::min(d.held_wrs, no_room ? went : held);
  if (no_room) {
    e.defer.room_retries.Add(1);
    return HandOver::kNoRoom;
  }
  if (rc != 0) {
    e.defer.refused_wrs.Add(held - went);
    WarnRefused(rc, held - went);
  }
  q->stats.delay_ticks.Add(now - p.entered);
  if (e.note_lateness) {
    e.lateness.Add(now - p.entered, now > p.due ? now - p.due : 0);
  }
  e.defer.handed_posts.Add(1);
  p.Clear();
  d.spare.push_back(std::move(d.fifo.front()));
  d.fifo.pop_front();
  return HandOver::kDone;
}

// Hands over the posts due by `now` (all of them when `now` is kNeverDue).
// Caller holds d.mu.
size_t DrainLocked(QpState* q, DeferQueue& d, uint64_t now) {
  size_t handed = 0;
  while (!d.fifo.empty() && d.fifo.front()->due <= now) {
    if (HandOverFront(q, d) != HandOver::kDone) break;
    ++handed;
  }
  d.head_due.store(d.fifo.empty() ? kNeverDue : d.fifo.front()->due);
  return handed;
}

// Queues `p` (filled, under d.mu) and tells the drainers.
void Push(DeferQueue& d, std::unique_ptr<DeferredPost> p) {
  p->due = std::max(p->due, d.last_due);
  d.last_due = p->due;
  d.held_wrs += p->wrs();
  const uint64_t due = p->due;
  const bool head = d.fifo.empty();
  d.fifo.push_back(std::move(p));
  if (!head) return;
  d.head_due.store(due);
  if (d.list != nullptr) LowerTo(&d.list->earliest, due);
  Progress().Notify(due);
}

// The WRs of `wr` that fit: stops at the first with more SGEs than the QP
// has (EINVAL) or past the send queue's room (ENOMEM).
const ibv_send_wr* FirstRefused(const DeferQueue& d, const ibv_send_wr* wr,
                                int* rc) {
  size_t held = d.held_wrs;
  for (; wr != nullptr; wr = wr->next, ++held) {
    if (wr->num_sge < 0 ||
        (d.max_send_sge != 0 && wr->opcode != IBV_WR_LOCAL_INV &&
         wr->opcode != IBV_WR_BIND_MW &&
         static_cast<uint32_t>(wr->num_sge) > d.max_send_sge)) {
      *rc = EINVAL;
      return wr;
    }
    if (d.max_send_wr != 0 && held >= d.max_send_wr) {
      *rc = ENOMEM;
      return wr;
    }
  }
  return nullptr;
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

DeferList* ListLocked(ibv_context* ctx) {
  Engine& e = E();
  if (DeferList* c = e.defer_lists.Find(ctx)) return c;
  auto owned = std::make_unique<DeferList>();
  DeferList* c = owned.get();
  if (!e.defer_lists.Insert(ctx, c)) return nullptr;
  e.defer_list_owner.push_back(std::move(owned));
  Progress().Watch(c);
  return c;
}

}  // namespace

void SetUpDeferLocked(QpState* q, const ibv_qp_cap& cap) {
  Engine& e = E();
  if (!e.deferring) return;
  if (!q->record_batches) {
    q->defer_fallback = DeferFallback::kDirectVerbs;
  } else if (e.td_pds.contains(q->qp->pd)) {
    q->defer_fallback = DeferFallback::kThreadDomain;
  }
  DeferList* c = nullptr;
  if (q->defer_fallback == DeferFallback::kNone) {
    c = ListLocked(q->qp->context);
  }
  if (c == nullptr) {
    if (q->defer_fallback == DeferFallback::kNone) {
      q->defer_fallback = DeferFallback::kDirectVerbs;
    }
    (q->defer_fallback == DeferFallback::kThreadDomain ? e.defer.spin_td_qps
                                                       : e.defer.spin_dv_qps)
        .Add(1);
    return;
  }
  auto d = std::make_unique<DeferQueue>();
  d->max_send_wr = cap.max_send_wr;
  d->max_send_sge = cap.max_send_sge;
  d->list = c;
  q->defer = std::move(d);
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->qps.push_back(q);
  }
  e.defer.qps.Add(1);
  Progress().Start();
}

int DeferPostSend(QpState* q, ibv_send_wr* wr, ibv_send_wr** bad_wr,
                  uint64_t entered, uint64_t due) {
  DeferQueue& d = *q->defer;
  const AppCall call(d.list, entered);
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.head_due.load() <= entered) DrainLocked(q, d, entered);
  int rc = 0;
  const ibv_send_wr* stop = FirstRefused(d, wr, &rc);
  if (stop != wr) {
    std::unique_ptr<DeferredPost> p = TakeSpare(d);
    p->CopyChain(wr, stop);
    p->entered = entered;
    p->due = due;
    Push(d, std::move(p));
  }
  if (rc != 0) *bad_wr = const_cast<ibv_send_wr*>(stop);
  return rc;
}

int DeferBatch(QpState* q, std::unique_ptr<WrRecording>* slot, uint64_t entered,
               uint64_t due, const PostShape& shape) {
  DeferQueue& d = *q->defer;
  const AppCall call(d.list, entered);
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.head_due.load() <= entered) DrainLocked(q, d, entered);
  if (d.max_send_wr != 0 && d.held_wrs + shape.wrs > d.max_send_wr) {
    (*slot)->Close();
    return ENOMEM;
  }
  std::unique_ptr<DeferredPost> p = TakeSpare(d);
  p->TakeBatch(slot);
  p->shape = shape;
  p->entered = entered;
  p->due = due;
  Push(d, std::move(p));
  return 0;
}

DeferList* ListOf(const ibv_cq* cq) {
  return E().defer_lists.Find(cq->context);
}

void DrainDueOnPoll(DeferList* c, uint64_t now) {
  if (c != nullptr && c->earliest.load(std::memory_order_relaxed) <= now) {
    DrainList(*c, now);
  }
}

// A call under way hands over what is due on its way out; an application
// polling every few microseconds does at its next poll.
bool AppWillHandOver(const DeferList& c, uint64_t now) {
  if (c.app_calls.load() != 0) return true;
  const uint64_t last = c.last_call.load(std::memory_order_relaxed);
  const uint64_t gap = c.call_gap.load(std::memory_order_relaxed);
  return gap < kMaxCallGap / 2 && now < last + 4 * gap;
}

DrainResult DrainAllDue(uint64_t now, uint64_t* next) {
  DrainResult r;
  Progress().ForEach([&](DeferList* c) {
    const uint64_t earliest = c->earliest.load();
    if (earliest <= now && AppWillHandOver(*c, now)) {
      r.left_to_app = true;
    } else if (earliest <= now) {
      std::unique_lock<std::mutex> lock(c->mu, std::try_to_lock);
      if (lock.owns_lock()) {
        lock.unlock();
        r.handed += DrainList(*c, now);
      } else {
        r.left_to_app = true;  // an application poll is draining it
      }
    }
    *next = std::min(*next, c->earliest.load());
  });
  return r;
}

void FlushDeferred(QpState* q, FlushReason why) {
  if (q == nullptr || q->defer == nullptr) return;
  DeferQueue& d = *q->defer;
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.fifo.empty()) return;
  Engine& e = E();
  if (why == FlushReason::kGone) {
    e.defer.refused_wrs.Add(d.held_wrs);
    Warn("defer: " + std::to_string(d.held_wrs) +
         " held WR(s) dropped: their QP was destroyed where the shim could "
         "not see it (counted in the report as refused)");
    for (auto& p : d.fifo) p->Clear();
    d.fifo.clear();
    d.held_wrs = 0;
    d.head_due.store(kNeverDue);
    return;
  }
  const size_t before = d.fifo.size();
  DrainLocked(q, d, kNeverDue);
  const size_t early = before - d.fifo.size();
  (why == FlushReason::kModify    ? e.defer.early_modify
   : why == FlushReason::kDestroy ? e.defer.early_destroy
                                  : e.defer.early_exit)
      .Add(early);
  // The provider still had no room: what is left cannot wait for a QP that
  // is changing state or going away.
  if (!d.fifo.empty()) {
    e.defer.refused_wrs.Add(d.held_wrs);
    WarnRefused(ENOMEM, d.held_wrs);
    for (auto& p : d.fifo) p->Clear();
    d.fifo.clear();
    d.held_wrs = 0;
    d.head_due.store(kNeverDue);
  }
}

void LeaveDeferList(QpState* q) {
  if (q->defer == nullptr || q->defer->list == nullptr) return;
  DeferList* c = q->defer->list;
  std::lock_guard<std::mutex> lock(c->mu);
  std::erase(c->qps, q);
}

void RejoinDeferList(QpState* q) {
  if (q->defer == nullptr || q->defer->list == nullptr) return;
  DeferList* c = q->defer->list;
  std::lock_guard<std::mutex> lock(c->mu);
  if (std::find(c->qps.begin(), c->qps.end(), q) == c->qps.end()) {
    c->qps.push_back(q);
  }
}

void FlushAllDeferred() {
  Progress().Stop();
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  for (auto& [key, q] : e.qp_owner) FlushDeferred(q.get(), FlushReason::kExit);
}

void ResetDeferLocked() {
  Engine& e = E();
  Progress().Stop();
  Progress().Forget();
  e.defer_lists.Clear();
  e.defer_list_owner.clear();
  e.td_pds.clear();
  e.defer.Reset();
}

void DeferAfterForkInChild() {
  Engine& e = E();
  DeferProgress::AfterForkInChild();
  // The parent's locks may be held by its threads, which the child lacks:
  // its queues and lists are set aside, never destroyed, and kept
  // reachable (a leak checker in the child must not report them).
  static NoDestructor<std::vector<std::unique_ptr<DeferList>>> lists;
  static NoDestructor<std::vector<std::unique_ptr<DeferQueue>>> queues;
  for (auto& owned : e.defer_list_owner)
    lists.get()->push_back(std::move(owned));
  e.defer_list_owner.clear();
  e.defer_lists.Clear();
  for (auto& [key, q] : e.qp_owner) {
    if (q->defer == nullptr) continue;
    queues.get()->push_back(std::move(q->defer));
    q->defer_fallback = DeferFallback::kNone;
  }
}

}  // namespace verbsemu::shim::internal
