#include "shim/internal/registry.h"

#include <errno.h>
#include <stddef.h>

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "shim/internal/cq_ex_poll.h"
#include "shim/internal/data_path.h"
#include "shim/internal/defer.h"
#include "shim/internal/device_traffic.h"
#include "shim/internal/faults.h"
#include "shim/internal/hidden_qps.h"
#include "shim/internal/loopback.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/port_link.h"
#include "shim/internal/qp_retire.h"
#include "shim/internal/report.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

thread_local int tl_own_context_depth = 0;

// What AdoptQp learns of a QP it did not see being set up.
constexpr int kAdoptMask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PORT |
                           IBV_QP_PATH_MTU | IBV_QP_ACCESS_FLAGS |
                           IBV_QP_DEST_QPN;

bool HasVctxField(const verbs_context* v, size_t offset) {
  return v != nullptr && v->sz >= sizeof(verbs_context) - offset;
}

// Calls the provider's creation op saved in the context of `context`.
template <auto Op, class Attr>
auto CreateThroughProvider(ibv_context* context, Attr* attr)
    -> decltype((std::declval<ContextState>().*Op)(context, attr)) {
  ContextState* c = E().contexts.Find(context);
  if (c == nullptr || c->*Op == nullptr) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return (c->*Op)(context, attr);
}

// IBV_QP_EX_WITH_FLUSH, in rdma-core 45 and later (not in every header the
// shim is built against).
constexpr uint64_t kQpExWithFlush = uint64_t{1} << 11;

// The send ops whose WRs cross the link twice (post_shape.h, Flow::kIn).
constexpr uint64_t kRoundTripOps = IBV_QP_EX_WITH_RDMA_READ |
                                   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
                                   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;

QpOrigin OriginOf(const ibv_qp_init_attr_ex& attr) {
  if ((attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) == 0) {
    return QpOrigin::kVerbs;
  }
  if ((attr.send_ops_flags & kQpExWithFlush) != 0) return QpOrigin::kWithFlush;
  return (attr.send_ops_flags & kRoundTripOps) == 0 ? QpOrigin::kOneWayOps
                                                    : QpOrigin::kVerbs;
}

ibv_qp* CreateQpExHook(ibv_context* context, ibv_qp_init_attr_ex* attr) {
  ibv_qp* qp =
      CreateThroughProvider<&ContextState::create_qp_ex>(context, attr);
  if (qp != nullptr) {
    const bool send_ops =
        (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0;
    RegisterQp(E().contexts.Find(context), qp, send_ops, OriginOf(*attr),
               &attr->cap, attr->sq_sig_all != 0);
  }
  return qp;
}

// Parent domains with a thread domain: their QPs take no provider lock, so
// the defer mode's progress thread must not post on them.
ibv_pd* AllocParentDomainHook(ibv_context* context,
                              ibv_parent_domain_init_attr* attr) {
  ibv_pd* pd =
      CreateThroughProvider<&ContextState::alloc_parent_domain>(context, attr);
  if (pd != nullptr && attr->td != nullptr) {
    std::lock_guard<std::mutex> lock(E().mu);
    E().defer.td_pds.insert(pd);
  }
  return pd;
}

ibv_cq_ex* CreateCqExHook(ibv_context* context, ibv_cq_init_attr_ex* attr) {
  ibv_cq_ex* cq =
      CreateThroughProvider<&ContextState::create_cq_ex>(context, attr);
  if (cq != nullptr) {
    E().contexts.Find(context)->cqs.Add(1);
    // Defer mode: its polls see the shim's own completions too.
    if (!E().defer.on || !WrapCqEx(cq)) {
      DeferNoteExtendedCq(ibv_cq_ex_to_cq(cq));
    }
  }
  return cq;
}

// Saves `current` as the provider's function unless it is one of the
// shim's own wrappers (a context patched before, then handed new ops by the
// provider's next verbs_set_ops call, or by libibverbs after it).
template <class Fn, class... Ours>
void SaveUnlessOurs(Fn* saved, Fn current, Ours... ours) {
  if (current != nullptr && ((current != ours) && ...)) *saved = current;
}

// Saves the provider's ops of `c->ctx` into `c`. Idempotent: run again after
// the provider or libibverbs rewrote some, it takes exactly the new ones.
void SaveOps(ContextState* c) {
  const ibv_context_ops& ops = c->ctx->ops;
  SaveUnlessOurs(&c->post_send, ops.post_send, &PostSend, &PostSendDelayOnly);
  SaveUnlessOurs(&c->poll_cq, ops.poll_cq, &PollCq, &PollCqDeferring);
  SaveUnlessOurs(&c->req_notify_cq, ops.req_notify_cq, &ReqNotifyCqDeferring);
  if (HasVctxField(c->vctx, offsetof(verbs_context, create_qp_ex))) {
    SaveUnlessOurs(&c->create_qp_ex, c->vctx->create_qp_ex, &CreateQpExHook);
  }
  if (HasVctxField(c->vctx, offsetof(verbs_context, create_cq_ex))) {
    SaveUnlessOurs(&c->create_cq_ex, c->vctx->create_cq_ex, &CreateCqExHook);
  }
  if (HasVctxField(c->vctx, offsetof(verbs_context, alloc_parent_domain))) {
    SaveUnlessOurs(&c->alloc_parent_domain, c->vctx->alloc_parent_domain,
                   &AllocParentDomainHook);
  }
}

// Installs the wrappers the settings need over the ops the provider has.
// Receive-side posts are never wrapped, nor CQ arming but in defer mode:
// nothing is emulated there, so they stay the provider's own functions.
void PatchOps(ContextState* c, const Wrapping& wrap) {
  ibv_context_ops& ops = c->ctx->ops;
  // The lean post has no QP to draw a varying latency for.
  const bool deferring = E().defer.on;
  const bool per_qp = wrap.bytes || deferring || E().latency_law.varies() ||
                      E().settings.topology != nullptr;
  if (c->post_send && wrap.posts) {
    ops.post_send = per_qp ? PostSend : PostSendDelayOnly;
  }
  if (c->poll_cq && wrap.polls) {
    ops.poll_cq = deferring ? PollCqDeferring : PollCq;
  }
  // Defer: arming a CQ kicks the progress thread (the application is
  // about to sleep on its channel).
  if (c->req_notify_cq && deferring) {
    ops.req_notify_cq = ReqNotifyCqDeferring;
  }
  if (c->alloc_parent_domain && deferring) {
    c->vctx->alloc_parent_domain = AllocParentDomainHook;
  }
  if (c->create_qp_ex && wrap.posts) c->vctx->create_qp_ex = CreateQpExHook;
  if (c->create_cq_ex && wrap.polls) c->vctx->create_cq_ex = CreateCqExHook;
}

}  // namespace

void PassThroughLocked(Engine& e, const std::string& why) noexcept {
  e.patching = false;
  e.emulating = false;
  e.wrap = Wrapping{};
  e.note_lateness = false;
  try {
    e.config_error = why;
    Warn(WarningCode::kConfigError, {why});
  } catch (...) {  // out of memory: the line is lost, the fallback stands
  }
}

bool EnsureCalibratedLocked() noexcept {
  Engine& e = E();
  if (e.calibrated) return true;
  try {
    if (FaultInjected(Fault::kCalibration)) {
      throw std::runtime_error("tsc calibration: clock did not advance");
    }
    ApplyCalibration(e, emulate::ProcessTscCalibration());
    return true;
  } catch (const std::exception& ex) {
    PassThroughLocked(e,
                      std::string(ex.what()) + "; running without emulation");
  } catch (...) {
    PassThroughLocked(e, "tsc calibration failed; running without emulation");
  }
  return false;
}

OwnContextScope::OwnContextScope() { ++tl_own_context_depth; }
OwnContextScope::~OwnContextScope() { --tl_own_context_depth; }
bool OwnContextScope::Active() { return tl_own_context_depth > 0; }

ContextState* RegisterContext(ibv_context* ctx) {
  Engine& e = E();
  if (ctx == nullptr || !e.patching || !e.wrap.posts) return nullptr;
  if (tl_own_context_depth > 0) return nullptr;
  std::lock_guard<std::mutex> lock(e.mu);
  if (ContextState* existing = e.contexts.Find(ctx)) {
    // Seen again while it is being opened (the provider's verbs_set_ops
    // after libibverbs' placeholder ops; verbs_open_device after
    // libibverbs' own slots): take the new ops, wrap them again.
    SaveOps(existing);
    PatchOps(existing, e.wrap);
    return existing;
  }
  if (!EnsureCalibratedLocked()) return nullptr;
  const char* name = ctx->device != nullptr ? ctx->device->name : "";
  if (!e.settings.EmulatesDevice(name)) return nullptr;
  if (FaultInjected(Fault::kOutOfMemory)) throw std::bad_alloc();
  auto c = std::make_unique<ContextState>();
  c->ctx = ctx;
  c->vctx = verbs_get_ctx(ctx);
  c->device = name;
  if (std::find(e.devices_seen.begin(), e.devices_seen.end(), c->device) ==
      e.devices_seen.end()) {
    e.devices_seen.push_back(c->device);
  }
  ArmReportSignalLocked();
  StartDeviceTrafficLocked(*c);
  // The kernel's view of this process's QPs, looked at while it runs (the
  // fake devices of tests have no kernel QPs).
  if (!e.settings.report.empty() && !RealVerbsAreFake()) StartHiddenQpWatch();
  SaveOps(c.get());
  ContextState* raw = c.get();
  if (!e.contexts.Insert(ctx, raw)) {
    NoteTableFull(Table::kContexts, e.contexts.capacity());
    return nullptr;
  }
  e.ctx_owner.emplace(ctx, std::move(c));
  // Published in the map first, then patched: the wrappers find their state.
  PatchOps(raw, e.wrap);
  return raw;
}

QpState* RegisterQp(ContextState* c, ibv_qp* qp, bool with_send_ops,
                    QpOrigin origin, const ibv_qp_cap* cap, bool sig_all) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  if (QpState* existing = e.qps.Find(qp)) return existing;
  if (FaultInjected(Fault::kOutOfMemory)) throw std::bad_alloc();
  auto owned = std::make_unique<QpState>();
  QpState* q = owned.get();
  q->qp = qp;
  q->ctx = c;
  q->qpn = qp->qp_num;
  q->type = qp->qp_type;
  q->one_way_ops = origin == QpOrigin::kOneWayOps;
  q->record_batches = e.emulating && (origin == QpOrigin::kVerbs ||
                                      (origin == QpOrigin::kOneWayOps &&
                                       OneWayBatchesNeedRecording(e, q->type)));
  // Owned before anything is patched or published, so that running out of
  // memory here leaves the QP untouched (and unemulated).
  const auto [slot, fresh] = e.qp_owner.try_emplace(qp, std::move(owned));
  if (!fresh) return nullptr;  // cannot happen: the two tables agree
  q->stream = e.next_stream++;
  if (with_send_ops && Real().qp_to_qp_ex != nullptr) {
    q->qpx = Real().qp_to_qp_ex(qp);
    if (q->qpx) {
      WrapQpExOf(q);
    }
  }
  if (!e.qps.Insert(qp, q)) {
    // Table full: the QP runs unemulated, and adoption is not tried.
    NoteTableFull(Table::kQps, e.qps.capacity());
    e.qps_full.store(true, std::memory_order_relaxed);
    if (q->qpx != nullptr) UnwrapQpEx(q->qpx, q->provider);
    e.qp_owner.erase(slot);
    return nullptr;
  }
  NoteSeenQp(c->device, q->qpn);
  SetUpDeferLocked(q, cap != nullptr ? *cap : ibv_qp_cap{}, sig_all);
  return q;
}

QpState* RegisterQpNoThrow(ContextState* c, ibv_qp* qp, bool with_send_ops,
                           QpOrigin origin, const ibv_qp_cap* cap,
                           bool sig_all) noexcept {
  try {
    return RegisterQp(c, qp, with_send_ops, origin, cap, sig_all);
  } catch (...) {
    return nullptr;
  }
}

QpState* AdoptQpNoThrow(ibv_qp* qp) noexcept {
  try {
    return AdoptQp(qp);
  } catch (...) {
    return nullptr;
  }
}

QpState* AdoptQp(ibv_qp* qp) {
  // Its table full: not queried (this is reached per post), not emulated.
  if (E().qps_full.load(std::memory_order_relaxed)) return nullptr;
  ContextState* c = E().contexts.Find(qp->context);
  if (c == nullptr) return nullptr;
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  const bool known =
      Real().query_qp != nullptr &&
      Real().query_qp(qp, &attr, kAdoptMask | IBV_QP_CAP, &init) == 0;
  // Its ibv_qp_ex, if it was created with send ops (ibv_qp_to_qp_ex gives
  // one only then), is wrapped as at creation (WrapQpEx never wraps a slot
  // twice).
  QpState* q =
      RegisterQp(c, qp, /*with_send_ops=*/true, QpOrigin::kVerbs,
                 known ? &init.cap : nullptr, !known || init.sq_sig_all != 0);
  if (q == nullptr || !known) return q;
  if (attr.qp_state >= IBV_QPS_RTR) {
    std::lock_guard<std::mutex> lock(q->mu);
    if (qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_UC) {
      q->av = attr.ah_attr;
      q->have_av = true;
      q->dest_qpn = attr.dest_qp_num;
      if (attr.ah_attr.port_num != 0) q->port = attr.ah_attr.port_num;
    }
  }
  ClassifyPeer(q);
  DetectLoopback(q);
  AttachLink(q);
  // Its packets count as posted by a shim process (the bypass check).
  OnQpTrafficModified(q, attr, kAdoptMask);
  return q;
}

void OnQpModified(QpState* q, const ibv_qp_attr& attr, int attr_mask) {
  bool rtr = false;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if ((attr_mask & IBV_QP_PORT) != 0 && attr.port_num != 0) {
      q->port = attr.port_num;
    }
    if ((attr_mask & IBV_QP_AV) != 0) {
      q->av = attr.ah_attr;
      q->have_av = q->type == IBV_QPT_RC || q->type == IBV_QPT_UC;
      if (attr.ah_attr.port_num != 0) q->port = attr.ah_attr.port_num;
    }
    if ((attr_mask & IBV_QP_DEST_QPN) != 0) q->dest_qpn = attr.dest_qp_num;
    rtr = (attr_mask & IBV_QP_STATE) != 0 && attr.qp_state == IBV_QPS_RTR;
  }
  // Providers may rewrite ibv_qp_ex slots on a state change (mlx5 installs
  // its real wr_complete at RTS and its error variant at RESET): wrap what
  // they installed, so the shim always calls the provider's current function.
  if (q->qpx != nullptr && (attr_mask & IBV_QP_STATE) != 0) {
    WrapQpExOf(q);
  }
  if ((attr_mask & IBV_QP_STATE) != 0) DeferQpStateChanged(q, attr.qp_state);
  OnQpTrafficModified(q, attr, attr_mask);
  if (!rtr) return;
  ClassifyPeer(q);
  DetectLoopback(q);
  AttachLink(q);
}

void TeardownContext(ibv_context* ctx, bool verbs_calls) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.mu);
  ContextState* c = e.contexts.Find(ctx);
  if (c == nullptr) return;
  std::vector<QpState*> mine;
  for (auto& [key, q] : e.qp_owner) {
    if (q->ctx == c) mine.push_back(q.get());
  }
  for (QpState* q : mine) RetireDetachedLocked(DetachQpLocked(q), verbs_calls);
  for (auto& link : c->links) {
    if (link && link->pad && !verbs_calls) link->pad->Abandon();
    link.reset();
  }
  for (auto& [key, link] : c->class_links) {
    if (link->pad && !verbs_calls) link->pad->Abandon();
  }
  c->class_links.clear();
  e.contexts.Erase(ctx);
  e.ctx_owner.erase(ctx);
}

void ForgetAllLocked() {
  Engine& e = E();
  for (auto& [key, q] : e.qp_owner) (void)q->pad_ah.release();
  for (auto& [key, c] : e.ctx_owner) {
    for (auto& link : c->links) {
      if (link && link->pad) link->pad->Abandon();
    }
    for (auto& [key, link] : c->class_links) {
      if (link->pad) link->pad->Abandon();
    }
  }
  ClearThreadCaches(/*forget_qps=*/true);
  {
    std::lock_guard<std::mutex> leaving(e.leaving_mu);
    e.leaving.clear();
  }
  e.qps.Clear();
  e.contexts.Clear();
  e.qp_owner.clear();
  e.graveyard.clear();
  e.ctx_owner.clear();
  e.retired.clear();
  e.folded.clear();
  e.devices_seen.clear();
}

}  // namespace verbsemu::shim::internal
