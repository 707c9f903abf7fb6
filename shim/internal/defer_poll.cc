// The defer mode's side of the application's polls and waits (defer.h):
// hand-overs on ibv_poll_cq, the shim's own completions merged into what
// it returns, the progress thread's scan, and the kick before a blocking
// wait.
#include <algorithm>
#include <mutex>

#include "shim/internal/defer.h"
#include "shim/internal/defer_progress.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

void NoteSendCompletions(DeferList* c, const ibv_wc* wc, int n) {
  if (c == nullptr) return;
  for (int i = 0; i < n; ++i) {
    // An error completion's opcode is not defined: it is left out, so its
    // WRs stay counted (the count errs toward a full queue, retried).
    if (wc[i].status != IBV_WC_SUCCESS || (wc[i].opcode & IBV_WC_RECV) != 0) {
      continue;
    }
    if (DeferQueue* d = c->by_qpn.Find(QpnKey(wc[i].qp_num))) {
      d->sq.Completed();
    }
  }
}

namespace {

// A call under way hands over what is due on its way out; an application
// polling every few microseconds does at its next poll.
bool AppWillHandOver(const DeferList& c, uint64_t now) {
  if (c.app_calls.load() != 0) return true;
  const uint64_t last = c.last_call.load(std::memory_order_relaxed);
  const uint64_t gap = c.call_gap.load(std::memory_order_relaxed);
  return gap < kMaxCallGap / 2 && now < last + 4 * gap;
}

// `c`'s application is about to block: due posts go now, and the thread
// no longer counts on its next call.
void BeforeBlock(DeferList& c, uint64_t now) {
  c.call_gap.store(kMaxCallGap, std::memory_order_relaxed);
  if (c.earliest.load() <= now) DrainList(c, now);
}

// One of `d`'s error completions was polled: when none is left, its held
// posts are due again (drainers skip a QP while it owes one).
void Repaid(DeferList& c, DeferQueue& d) {
  std::lock_guard<std::mutex> lock(d.mu);
  if (d.synth_owed.fetch_sub(1) != 1 || d.fifo.empty()) return;
  const uint64_t next = NextDue(d);
  d.head_due.store(next);
  LowerTo(&c.earliest, next);
}

// Whether `wc` is a send completion of a QP whose posts pass each other
// (defer_order.h): its queue, or null. An error completion's opcode is not
// defined: one of such a QP counts as a send completion.
DeferQueue* SortedQueue(DeferList& c, const ibv_wc& wc) {
  if (wc.status == IBV_WC_SUCCESS && (wc.opcode & IBV_WC_RECV) != 0) {
    return nullptr;
  }
  DeferQueue* d = c.by_qpn.Find(QpnKey(wc.qp_num));
  return d != nullptr && d->order != nullptr ? d : nullptr;
}

// The `n` completions polled into `wc`: the send completions of QPs whose
// posts pass each other leave the array for c.sorted, in post order, and
// what room is left is filled from there. Returns the new count.
int SortPolled(DeferList& c, const ibv_cq* cq, int num_entries, ibv_wc* wc,
               int n) {
  if (c.sorting.load(std::memory_order_relaxed) == 0 && c.sorted.Empty()) {
    return n;
  }
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (DeferQueue* d = SortedQueue(c, wc[i])) {
      d->order->Polled(wc[i]);
    } else {
      wc[kept++] = wc[i];
    }
  }
  return kept + c.sorted.Take(cq, num_entries - kept, wc + kept);
}

}  // namespace

DeferList* ListOf(const ibv_cq* cq) {
  return E().defer.lists.Find(cq->context);
}

void DrainDueOnPoll(DeferList* c, uint64_t now) {
  if (c != nullptr && c->earliest.load(std::memory_order_relaxed) <= now) {
    DrainList(*c, now);
  }
}

int AfterPoll(DeferList* c, ibv_cq* cq, int num_entries, ibv_wc* wc, int n,
              int (*poll)(ibv_cq*, int, ibv_wc*)) {
  if (c == nullptr || n < 0) return n;
  if (n > 0) NoteSendCompletions(c, wc, n);
  n = SortPolled(*c, cq, num_entries, wc, n);
  if (n >= num_entries || c->synth.Empty()) return n;
  // The shim's completions seen now were made after the provider's of
  // the same QPs' earlier WRs: a second look at the provider returns
  // those first, and only the ones seen before it are added.
  const size_t seen = c->synth.PendingFor(cq);
  if (seen == 0) return n;
  const int more = poll(cq, num_entries - n, wc + n);
  if (more != 0) {
    if (more < 0) return n;
    NoteSendCompletions(c, wc + n, more);
    return n + SortPolled(*c, cq, num_entries - n, wc + n, more);
  }
  const int room = static_cast<int>(
      std::min<size_t>(seen, static_cast<size_t>(num_entries - n)));
  return n + TakeSynthetic(c, cq, room, wc + n);
}

int TakeSynthetic(DeferList* c, const ibv_cq* cq, int n, ibv_wc* wc) {
  if (c == nullptr) return 0;
  const int took = c->synth.Take(cq, n, wc);
  for (int i = 0; i < took; ++i) {
    if (DeferQueue* d = c->by_qpn.Find(QpnKey(wc[i].qp_num))) Repaid(*c, *d);
  }
  return took;
}

void DeferBeforeBlock(const ibv_context* context) {
  if (!E().defer.on) return;
  const uint64_t now = emulate::ReadTsc();
  if (context != nullptr) {
    if (DeferList* c = E().defer.lists.Find(context)) BeforeBlock(*c, now);
  } else {
    Progress().ForEach([now](DeferList* c) { BeforeBlock(*c, now); });
  }
  Progress().AppBlocks();
}

void DeferForgetCq(const ibv_cq* cq) {
  if (cq == nullptr || !E().defer.on) return;
  ForgetExtendedCq(cq);
  if (DeferList* c = E().defer.lists.Find(cq->context)) {
    c->synth.Forget(cq);
    c->sorted.Forget(cq);
  }
}

void DeferNoteExtendedCq(const ibv_cq* cq) {
  if (cq != nullptr && E().defer.on) NoteExtendedCq(cq);
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

}  // namespace verbsemu::shim::internal
