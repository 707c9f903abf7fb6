// Which QPs of the defer mode (defer.h) hold their posts, with what queue,
// and their place on their context's list.
#include <algorithm>
#include <memory>
#include <mutex>

#include "shim/internal/defer.h"
#include "shim/internal/defer_progress.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

DeferList* ListLocked(ibv_context* ctx) {
  Engine& e = E();
  if (DeferList* c = e.defer.lists.Find(ctx)) return c;
  auto owned = std::make_unique<DeferList>();
  DeferList* c = owned.get();
  if (!e.defer.lists.Insert(ctx, c)) {
    NoteTableFull(Table::kDeferLists, e.defer.lists.capacity());
    return nullptr;
  }
  e.defer.list_owner.push_back(std::move(owned));
  Progress().Watch(c);
  return c;
}

// Why `q` cannot defer (kNone: it can). Caller holds E().mu.
DeferFallback FallbackOf(const QpState* q) {
  Engine& e = E();
  if (!q->record_batches) return DeferFallback::kDirectVerbs;
  if (e.defer.td_pds.contains(q->qp->pd)) return DeferFallback::kThreadDomain;
  if (!e.defer.lock_free_provider.empty())
    return DeferFallback::kSingleThreaded;
  return DeferFallback::kNone;
}

Counter& SpinCounter(DeferFallback why) {
  DeferCounters& c = E().defer.counts;
  return why == DeferFallback::kThreadDomain     ? c.spin_td_qps
         : why == DeferFallback::kSingleThreaded ? c.spin_st_qps
         : why == DeferFallback::kNoThread       ? c.spin_nt_qps
                                                 : c.spin_dv_qps;
}

}  // namespace

void SetUpDeferLocked(QpState* q, const ibv_qp_cap& cap, bool sig_all) {
  Engine& e = E();
  if (!e.defer.on) return;
  q->defer_fallback = FallbackOf(q);
  DeferList* c = nullptr;
  // No progress thread (a thread limit): a held post would wait for the
  // application's next call, which may never come, so the QP spins.
  if (q->defer_fallback == DeferFallback::kNone && !Progress().Start()) {
    q->defer_fallback = DeferFallback::kNoThread;
  }
  if (q->defer_fallback == DeferFallback::kNone) {
    c = ListLocked(q->qp->context);
  }
  if (c == nullptr) {
    if (q->defer_fallback == DeferFallback::kNone) {
      q->defer_fallback = DeferFallback::kDirectVerbs;
    }
    SpinCounter(q->defer_fallback).Add(1);
    return;
  }
  auto d = std::make_unique<DeferQueue>();
  d->limits.max_send_wr = cap.max_send_wr;
  d->limits.max_send_sge = cap.max_send_sge;
  d->limits.max_inline_data = cap.max_inline_data;
  d->limits.rules = PostRules::ForDevice(q->ctx->device);
  // A QP made here starts in RESET; one adopted later is taken as it is.
  d->limits.reached_rts = q->qp->state >= IBV_QPS_RTS;
  d->sig_all = sig_all;
  d->sq.set_depth(cap.max_send_wr);
  // Per-destination order needs to know which WRs will complete: a QP
  // made here (its sq_sig_all known), not one adopted without its caps;
  // and to see its completions to return them in post order: not on an
  // extended CQ, polled by ibv_start_poll, which the shim does not see.
  const ibv_cq* send_cq = q->qp->send_cq;
  if (q->type == IBV_QPT_UD && e.settings.topology != nullptr &&
      cap.max_send_wr != 0 && send_cq != nullptr && !IsExtendedCq(send_cq)) {
    d->order = std::make_unique<CompletionOrder>(q->qp->send_cq, &c->sorted);
  }
  d->list = c;
  q->defer = std::move(d);
  if (q->defer->order != nullptr) c->sorting.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->qps.push_back(q);
  }
  (void)c->by_qpn.Insert(QpnKey(q->qpn), q->defer.get());
  e.defer.counts.qps.Add(1);
}

void LeaveDeferList(QpState* q) {
  if (q->defer == nullptr || q->defer->list == nullptr) return;
  DeferList* c = q->defer->list;
  c->by_qpn.Erase(QpnKey(q->qpn));
  std::lock_guard<std::mutex> lock(c->mu);
  if (std::erase(c->qps, q) > 0 && q->defer->order != nullptr) {
    c->sorting.fetch_sub(1);
  }
}

void RejoinDeferList(QpState* q) {
  if (q->defer == nullptr || q->defer->list == nullptr) return;
  DeferList* c = q->defer->list;
  if (c->by_qpn.Find(QpnKey(q->qpn)) == nullptr) {
    (void)c->by_qpn.Insert(QpnKey(q->qpn), q->defer.get());
  }
  std::lock_guard<std::mutex> lock(c->mu);
  if (std::find(c->qps.begin(), c->qps.end(), q) == c->qps.end()) {
    c->qps.push_back(q);
    if (q->defer->order != nullptr) c->sorting.fetch_add(1);
  }
}

}  // namespace verbsemu::shim::internal
