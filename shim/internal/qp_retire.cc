// QP retirement (qp_retire.h): detach, record, free when unreferenced.
#include "shim/internal/qp_retire.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "shim/internal/counters.h"
#include "shim/internal/defer.h"
#include "shim/internal/device_traffic.h"
#include "shim/internal/hidden_qps.h"
#include "shim/internal/registry.h"

namespace verbsemu::shim::internal {

std::unique_ptr<QpState> DetachQpLocked(QpState* q) {
  Engine& e = E();
  e.qps.Erase(q->qp);
  e.qps_full.store(false, std::memory_order_relaxed);
  auto it = e.qp_owner.find(q->qp);
  std::unique_ptr<QpState> owned = std::move(it->second);
  e.qp_owner.erase(it);
  return owned;
}

namespace {

void FoldIntoDevice(Engine& e, const QpRecord& r) {
  for (FoldedQps& f : e.folded) {
    if (f.device == r.device) {
      ++f.qps;
      f.c += r.c;
      return;
    }
  }
  e.folded.push_back({r.device, 1, r.c});
}

// Frees retired QP state that no thread cache names any more.
void ReclaimGraveyardLocked(Engine& e) {
  std::erase_if(e.graveyard, [](const std::unique_ptr<QpState>& q) {
    return !ThreadCachesReference(&q->stats);
  });
}

}  // namespace

void RetireDetachedLocked(std::unique_ptr<QpState> q, bool verbs_calls) {
  Engine& e = E();
  OnQpTrafficRetired(q.get());
  LeaveDeferList(q.get());
  ForgetSeenQp(q->ctx->device, q->qpn);
  e.retired.push_back({q->ctx->device, q->qpn, q->type, q->stats.Snapshot(),
                       q->loopback.load(std::memory_order_relaxed)});
  if (e.retired.size() > kKeptRetiredQps) {
    FoldIntoDevice(e, e.retired.front());
    e.retired.pop_front();
  }
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (!verbs_calls) (void)q->pad_ah.release();
    q->pad_ah.reset();
  }
  e.graveyard.push_back(std::move(q));
  ReclaimGraveyardLocked(e);
}

QpState* LiveQp(ibv_qp* qp) {
  QpState* q = E().qps.Find(qp);
  if (q == nullptr || q->qpn == qp->qp_num) return q;
  // The QP the shim knew at this address was destroyed behind it and
  // another was created there: the old one's peer, link and held posts
  // must not carry over.
  std::unique_ptr<QpState> stale = DetachQp(qp);
  FlushDeferred(stale.get(), FlushReason::kGone);
  FinishDestroy(std::move(stale), /*destroyed=*/true);
  return nullptr;
}

std::unique_ptr<QpState> DetachQp(ibv_qp* qp) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  QpState* q = e.qps.Find(qp);
  if (q == nullptr) return nullptr;
  if (q->qpx != nullptr) {
    std::lock_guard<std::mutex> leaving(e.leaving_mu);
    e.leaving[qp] = q->provider;
  }
  return DetachQpLocked(q);
}

void FinishDestroy(std::unique_ptr<QpState> q, bool destroyed) {
  if (q == nullptr) return;
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  {
    std::lock_guard<std::mutex> leaving(e.leaving_mu);
    e.leaving.erase(q->qp);
  }
  // Still alive (the provider refused), and not adopted again meanwhile:
  // it goes back as it was.
  if (!destroyed && e.qps.Find(q->qp) == nullptr &&
      e.qps.Insert(q->qp, q.get())) {
    RejoinDeferList(q.get());
    e.qp_owner.emplace(q->qp, std::move(q));
    return;
  }
  RetireDetachedLocked(std::move(q), /*verbs_calls=*/true);
}

}  // namespace verbsemu::shim::internal
