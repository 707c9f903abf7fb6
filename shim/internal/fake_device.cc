#include "shim/internal/fake_device.h"

#include <errno.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "emulate/tsc.h"
#include "shim/internal/fake_cq.h"
#include "shim/internal/fake_objects.h"
#include "shim/internal/fake_qp_ex.h"

namespace verbsemu::shim::internal {

void FakeComplete(ibv_cq* cq, uint64_t wr_id, ibv_wc_opcode op,
                  ibv_wc_status status, FakeQp* qp, uint64_t sq_index) {
  if (cq == nullptr) return;
  FakeCq* f = reinterpret_cast<FakeCq*>(cq);
  const FakeDevice* d =
      reinterpret_cast<FakeContext*>(verbs_get_ctx(cq->context))->owner;
  FakeCqe e{};
  e.wc.wr_id = wr_id;
  e.wc.status = status;
  e.wc.opcode = op;
  e.qp = qp;
  e.sq_index = sq_index;
  if (qp != nullptr) e.wc.qp_num = qp->qpx.qp_base.qp_num;
  const uint64_t msg = d->wire_msg_ticks.load(std::memory_order_relaxed);
  const uint64_t latency =
      d->wire_latency_ticks.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(f->mu);
  if (msg != 0 || latency != 0) {
    const uint64_t start = std::max(emulate::ReadTsc(), f->wire_free_at);
    f->wire_free_at = start + msg;
    e.ready_tsc = start + msg + latency;
  }
  f->entries.push_back(e);
  FakeEventOnCompletion(f);
}

uint64_t Fnv1a(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3;
  return h;
}

bool StampPost(FakeDevice* d, uint64_t tsc) {
  if (d->null_ops.load(std::memory_order_relaxed)) return false;
  d->post_calls.fetch_add(1, std::memory_order_relaxed);
  d->last_post_tsc.store(tsc, std::memory_order_relaxed);
  return true;
}

namespace {

FakeContext* Ctx(ibv_context* c) {
  return reinterpret_cast<FakeContext*>(verbs_get_ctx(c));
}
FakeDevice* Dev(ibv_context* c) { return Ctx(c)->owner; }
FakeQp* Qp(ibv_qp* qp) { return reinterpret_cast<FakeQp*>(qp); }

// ---- data path

void RecordWr(FakeDevice* d, ibv_qp* qp, const ibv_send_wr* w, uint64_t tsc,
              uint64_t bytes) {
  if (!d->record_posts.load(std::memory_order_relaxed)) return;
  PostRecord r;
  r.tsc = tsc;
  r.qp = qp;
  r.wr_id = w->wr_id;
  r.bytes = bytes;
  r.opcode = w->opcode;
  r.remote_qpn = qp->qp_type == IBV_QPT_UD ? w->wr.ud.remote_qpn : 0;
  r.digest = 0xcbf29ce484222325;
  for (int s = 0; (w->send_flags & IBV_SEND_INLINE) != 0 && s < w->num_sge;
       ++s) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the WR's own address
    const auto* data = reinterpret_cast<const void*>(w->sg_list[s].addr);
    r.digest = Fnv1a(r.digest, data, w->sg_list[s].length);
  }
  d->Record(r);
}

// Caller holds q->sq_mu.
int PostLocked(FakeQp* q, ibv_send_wr* wr, ibv_send_wr** bad_wr, uint64_t tsc) {
  FakeDevice* d = q->ctx->owner;
  ibv_qp* qp = &q->qpx.qp_base;
  const int fail_at = d->fail_post_at.load();
  const bool mlx5 = d->personality == Personality::kMlx5;
  int i = 0;
  uint64_t total = 0;
  for (ibv_send_wr* w = wr; w != nullptr; w = w->next, ++i) {
    int refused = i == fail_at ? ENOMEM : FakePostFault(q);
    if (refused == 0 && mlx5) refused = FakeMlx5Refusal(*q, *w);
    if (refused != 0) {
      *bad_wr = w;
      return refused;
    }
    // As a provider does, it reads no sg_list for opcodes without data.
    const bool data =
        w->opcode != IBV_WR_LOCAL_INV && w->opcode != IBV_WR_BIND_MW;
    uint64_t bytes = 0;
    for (int s = 0; data && s < w->num_sge; ++s) bytes += w->sg_list[s].length;
    total += bytes;
    if (qp->qp_type == IBV_QPT_UD) {
      d->ud_datagrams.fetch_add(1, std::memory_order_relaxed);
      d->ud_bytes.fetch_add(bytes, std::memory_order_relaxed);
    }
    RecordWr(d, qp, w, tsc, bytes);
    const uint64_t index = q->sq_head.fetch_add(1) + 1;
    const ibv_wc_status status = FakeWrStatus(q);
    // An error completes whether signaled or not, as providers flush.
    if (q->sig_all || (w->send_flags & IBV_SEND_SIGNALED) != 0 ||
        status != IBV_WC_SUCCESS) {
      FakeComplete(qp->send_cq, w->wr_id, IBV_WC_SEND, status, q, index);
    }
  }
  d->last_post_bytes.store(total, std::memory_order_relaxed);
  return 0;
}

int FakePostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  const uint64_t tsc = emulate::ReadTscOrdered();  // after what came before
  FakeQp* q = Qp(qp);
  if (qp->qp_type == IBV_QPT_DRIVER && q->ex) {  // Personality::kEfa
    *bad_wr = wr;
    return EOPNOTSUPP;
  }
  if (!StampPost(q->ctx->owner, tsc)) return 0;
  FakeProviderChores(q->ctx->owner->faults);
  EnterPostPath(q->ctx);
  int rc = 0;
  {
    std::lock_guard<std::mutex> lock(q->sq_mu);
    rc = PostLocked(q, wr, bad_wr, tsc);
  }
  LeavePostPath(q->ctx);
  return rc;
}

int FakePostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr**) {
  FakeDevice* d = Qp(qp)->ctx->owner;
  d->recv_calls.fetch_add(1);
  for (; wr != nullptr && d->complete_recvs.load(); wr = wr->next) {
    FakeComplete(qp->recv_cq, wr->wr_id, IBV_WC_RECV, IBV_WC_SUCCESS, nullptr,
                 0);
  }
  return 0;
}

int FakePostSrqRecv(ibv_srq* srq, ibv_recv_wr*, ibv_recv_wr**) {
  Dev(srq->context)->recv_calls.fetch_add(1);
  return 0;
}

int FakeReqNotifyCq(ibv_cq* cq, int) {
  Dev(cq->context)->notify_calls.fetch_add(1);
  FakeArm(reinterpret_cast<FakeCq*>(cq));
  return 0;
}

// ---- control path
ibv_qp* MakeQp(FakeContext* fc, ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq,
               ibv_qp_type type, bool sig_all, bool ex, const ibv_qp_cap& cap) {
  FakeDevice* d = fc->owner;
  FakeProviderChores(d->faults);
  auto q = std::make_unique<FakeQp>();
  std::memset(static_cast<void*>(&q->qpx), 0, sizeof(q->qpx));
  q->ctx = fc;
  q->ex = ex;
  q->sig_all = sig_all;
  q->cap = cap;
  ibv_qp& base = q->qpx.qp_base;
  base.context = &fc->vctx.context;
  base.pd = pd;
  base.send_cq = send_cq;
  base.recv_cq = recv_cq;
  base.qp_type = type;
  base.state = IBV_QPS_RESET;
  static std::atomic<uint32_t> next_qpn{0x11};
  base.qp_num = next_qpn.fetch_add(1);
  if (ex) {
    InstallFakeQpEx(q->qpx, d->personality, type);
  }
  ApplyFakePersonality(q.get(), IBV_QPS_RESET);  // mlx5: created in RESET
  ibv_qp* raw = &q->qpx.qp_base;
  std::lock_guard<std::mutex> lock(d->mu);
  d->qps.push_back(std::move(q));
  d->live_qps.fetch_add(1);
  return raw;
}

// What libefa refuses (errno set): efadv creation on another device or of
// another type than SRD's; verbs creation of anything but UD on EFA.
bool EfaRefuses(FakeDevice* d, ibv_qp_type type, bool efadv) {
  const bool efa = d->personality == Personality::kEfa;
  if (efadv && efa && type != IBV_QPT_DRIVER) {
    errno = EINVAL;
    return true;
  }
  if (efadv ? !efa : efa && type != IBV_QPT_UD) {
    errno = EOPNOTSUPP;
    return true;
  }
  return false;
}

ibv_qp* FakeCreateQpEx(ibv_context* c, ibv_qp_init_attr_ex* a) {
  if (EfaRefuses(Dev(c), a->qp_type, false)) return nullptr;
  const bool ex = (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0;
  return MakeQp(Ctx(c), a->pd, a->send_cq, a->recv_cq, a->qp_type,
                a->sq_sig_all != 0, ex, a->cap);
}

ibv_qp* FakeEfadvCreateQpEx(ibv_context* c, ibv_qp_init_attr_ex* a,
                            efadv_qp_init_attr* efa, uint32_t) {
  if (EfaRefuses(Dev(c), a->qp_type, true) || efa == nullptr) return nullptr;
  const bool ex = (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0;
  return MakeQp(Ctx(c), a->pd, a->send_cq, a->recv_cq, a->qp_type,
                a->sq_sig_all != 0, ex, a->cap);
}

// The ops a provider hands libibverbs (the opaque verbs_context_ops).
struct FakeOps {
  decltype(ibv_context_ops::post_send) post_send;
  decltype(ibv_context_ops::post_recv) post_recv;
  decltype(ibv_context_ops::post_srq_recv) post_srq_recv;
  decltype(ibv_context_ops::poll_cq) poll_cq;
  decltype(ibv_context_ops::req_notify_cq) req_notify_cq;
  decltype(verbs_context::create_qp_ex) create_qp_ex;
  decltype(verbs_context::create_cq_ex) create_cq_ex;
  decltype(verbs_context::query_port) query_port;
  decltype(verbs_context::alloc_parent_domain) alloc_parent_domain;
};

int PlaceholderPostSend(ibv_qp*, ibv_send_wr* wr, ibv_send_wr** bad) {
  *bad = wr;
  return EOPNOTSUPP;
}
int PlaceholderPollCq(ibv_cq*, int, ibv_wc*) { return -1; }

// libibverbs' placeholder ops, installed before the provider's own.
constexpr FakeOps kPlaceholderOps = {PlaceholderPostSend,
                                     nullptr,
                                     nullptr,
                                     PlaceholderPollCq,
                                     nullptr,
                                     nullptr,
                                     nullptr,
                                     nullptr,
                                     nullptr};
constexpr FakeOps kProviderOps = {
    FakePostSend,   FakePostRecv,    FakePostSrqRecv,
    FakePollCq,     FakeReqNotifyCq, FakeCreateQpEx,
    FakeCreateCqEx, FakeQueryPortEx, FakeAllocParentDomain};

// libibverbs' verbs_set_ops: every non-NULL op is installed.
void FakeVerbsSetOps(verbs_context* v, const void* opaque) {
  const auto& ops = *static_cast<const FakeOps*>(opaque);
  auto set = [](auto& slot, auto op) {
    if (op != nullptr) slot = op;
  };
  set(v->context.ops.post_send, ops.post_send);
  set(v->context.ops.post_recv, ops.post_recv);
  set(v->context.ops.post_srq_recv, ops.post_srq_recv);
  set(v->context.ops.poll_cq, ops.poll_cq);
  set(v->context.ops.req_notify_cq, ops.req_notify_cq);
  set(v->create_qp_ex, ops.create_qp_ex);
  set(v->create_cq_ex, ops.create_cq_ex);
  set(v->query_port, ops.query_port);
  set(v->alloc_parent_domain, ops.alloc_parent_domain);
}

std::atomic<void (*)(verbs_context*, const void*)> g_set_ops_hook{nullptr};
std::atomic<int (*)(ibv_qp*)> g_cmd_destroy_qp_hook{nullptr};

ibv_context* FakeOpenDevice(ibv_device* dev) {
  FakeDevice* d = *reinterpret_cast<FakeDevice**>(reinterpret_cast<char*>(dev) +
                                                  sizeof(ibv_device));
  auto fc = std::make_unique<FakeContext>();
  std::memset(static_cast<void*>(&fc->vctx), 0, sizeof(fc->vctx));
  fc->owner = d;
  // As mlx5_alloc_context reads it (single_threaded_app).
  const char* st = getenv("MLX5_SINGLE_THREADED");
  fc->single_threaded = d->personality == Personality::kMlx5 && st != nullptr &&
                        std::strcmp(st, "1") == 0;
  verbs_context& v = fc->vctx;
  v.sz = sizeof(verbs_context);
  v.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
  v.context.device = dev;
  ibv_context* raw = &v.context;
  {
    std::lock_guard<std::mutex> lock(d->mu);
    d->contexts.push_back(std::move(fc));
    d->open_contexts.fetch_add(1);
  }
  if (auto* hook = g_set_ops_hook.load()) {
    hook(&v, &kPlaceholderOps);
    hook(&v, &kProviderOps);
  } else {
    FakeVerbsSetOps(&v, &kProviderOps);
  }
  return raw;
}

std::atomic<void (*)(verbs_context*)> g_uninit_hook{nullptr};

int FakeCloseDevice(ibv_context* c) {
  if (auto* hook = g_uninit_hook.load()) hook(verbs_get_ctx(c));
  Dev(c)->open_contexts.fetch_sub(1);
  return 0;
}

ibv_qp* FakeCreateQp(ibv_pd* pd, ibv_qp_init_attr* a) {
  if (EfaRefuses(Dev(pd->context), a->qp_type, false)) return nullptr;
  return MakeQp(Ctx(pd->context), pd, a->send_cq, a->recv_cq, a->qp_type,
                a->sq_sig_all != 0, false, a->cap);
}

ibv_qp* FakeEfadvCreateDriverQp(ibv_pd* pd, ibv_qp_init_attr* a, uint32_t) {
  if (EfaRefuses(Dev(pd->context), a->qp_type, true)) return nullptr;
  return MakeQp(Ctx(pd->context), pd, a->send_cq, a->recv_cq, a->qp_type,
                a->sq_sig_all != 0, false, a->cap);
}

int FakeModifyQp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  FakeQp* q = Qp(qp);
  FakeProviderChores(q->ctx->owner->faults);
  if ((mask & IBV_QP_STATE) != 0) {
    qp->state = attr->qp_state;
    ApplyFakePersonality(q, attr->qp_state);
    if (attr->qp_state == IBV_QPS_ERR) q->in_error.store(true);
    if (attr->qp_state == IBV_QPS_RESET) q->in_error.store(false);
  }
  q->attr = *attr;
  q->attr_mask_seen |= mask;
  return 0;
}

int FakeQueryQp(ibv_qp* qp, ibv_qp_attr* attr, int, ibv_qp_init_attr* init) {
  FakeQp* q = Qp(qp);
  *attr = q->attr;
  attr->qp_state = qp->state;
  if (init != nullptr) std::memset(init, 0, sizeof(*init));
  return 0;
}

// The destroy command (libibverbs' ibv_cmd_destroy_qp, as the fake's).
int FakeCmdDestroyQp(ibv_qp* qp) {
  FakeQp* q = Qp(qp);
  if (q->destroyed) return EINVAL;
  FakeDevice* d = q->ctx->owner;
  FakeProviderChores(d->faults);
  if (d->on_destroy_qp) d->on_destroy_qp(qp);
  if (d->fail_destroy_qp.load()) return EBUSY;
  q->destroyed = true;
  q->ctx->owner->live_qps.fetch_sub(1);
  return 0;
}

int FakeDestroyQp(ibv_qp* qp) {
  auto* hook = g_cmd_destroy_qp_hook.load();
  return hook != nullptr ? hook(qp) : FakeCmdDestroyQp(qp);
}

ibv_cq* FakeCreateCq(ibv_context* c, int, void* cq_context,
                     ibv_comp_channel* ch, int) {
  FakeDevice* d = Dev(c);
  auto f = std::make_unique<FakeCq>();
  std::memset(static_cast<void*>(&f->cq), 0, sizeof(f->cq));
  f->cq.context = c;
  f->cq.cq_context = cq_context;
  f->cq.channel = ch;
  ibv_cq* raw = &f->cq;
  std::lock_guard<std::mutex> lock(d->mu);
  d->cqs.push_back(std::move(f));
  d->live_cqs.fetch_add(1);
  return raw;
}

int FakeDestroyCq(ibv_cq* cq) {
  if (Dev(cq->context)->fail_destroy_cq.load()) return EBUSY;
  Dev(cq->context)->live_cqs.fetch_sub(1);
  return 0;
}

int FakeGetCqEvent(ibv_comp_channel* channel, ibv_cq** cq, void** ctx) {
  return FakeWaitCqEvent(channel, cq, ctx);
}

ibv_qp_ex* FakeQpToQpEx(ibv_qp* qp) {
  FakeQp* q = Qp(qp);
  return q->ex ? &q->qpx : nullptr;
}

}  // namespace

FakeDevice::FakeDevice(const char* name) {
  std::strncpy(dev_.dev.name, name, sizeof(dev_.dev.name) - 1);
  std::strncpy(dev_.dev.dev_name, name, sizeof(dev_.dev.dev_name) - 1);
  dev_.dev.node_type = IBV_NODE_CA;
  dev_.dev.transport_type = IBV_TRANSPORT_IB;
  dev_.owner = this;
  static_assert(offsetof(FakeIbvDevice, owner) == sizeof(ibv_device));
}

FakeDevice::~FakeDevice() = default;

void FakeDevice::ReservePosts(size_t n) {
  std::lock_guard<std::mutex> lock(rec_mu_);
  const size_t had = posts_.size();
  posts_.resize(had + n);
  posts_.resize(had);
}

void FakeDevice::Record(const PostRecord& r) {
  if (on_record) on_record(r);
  std::lock_guard<std::mutex> lock(rec_mu_);
  posts_.push_back(r);
}

void FakeDevice::SetUninitHook(void (*hook)(verbs_context*)) {
  g_uninit_hook.store(hook);
}

void FakeDevice::SetSetOpsHook(void (*hook)(verbs_context*, const void*)) {
  g_set_ops_hook.store(hook);
}

void FakeDevice::SetCmdDestroyQpHook(int (*hook)(ibv_qp*)) {
  g_cmd_destroy_qp_hook.store(hook);
}

void FakeDevice::RecycleQp(ibv_qp* qp) {
  FakeQp* q = Qp(qp);
  if (q->destroyed) q->ctx->owner->live_qps.fetch_add(1);
  q->destroyed = false;
  qp->qp_num += 0x1000;
  qp->state = IBV_QPS_RESET;
  q->attr = ibv_qp_attr{};
  q->attr_mask_seen = 0;
}

std::vector<PostRecord> FakeDevice::Posts() {
  std::lock_guard<std::mutex> lock(rec_mu_);
  return posts_;
}

RealVerbs FakeDevice::MakeRealVerbs() {
  RealVerbs r;
  r.open_device = FakeOpenDevice;
  r.close_device = FakeCloseDevice;
  r.create_qp = FakeCreateQp;
  r.modify_qp = FakeModifyQp;
  r.query_qp = FakeQueryQp;
  r.destroy_qp = FakeDestroyQp;
  r.create_cq = FakeCreateCq;
  r.destroy_cq = FakeDestroyCq;
  r.get_cq_event = FakeGetCqEvent;
  r.qp_to_qp_ex = FakeQpToQpEx;
  r.query_port = FakeQueryPort;
  r.query_gid = FakeQueryGid;
  r.alloc_pd = FakeAllocPd;
  r.dealloc_pd = FakeDeallocPd;
  r.reg_mr = FakeRegMr;
  r.dereg_mr = FakeDeregMr;
  r.create_ah = FakeCreateAh;
  r.destroy_ah = FakeDestroyAh;
  r.verbs_set_ops = FakeVerbsSetOps;
  r.ibv_cmd_destroy_qp = FakeCmdDestroyQp;
  r.efadv_create_qp_ex = FakeEfadvCreateQpEx;
  r.efadv_create_driver_qp = FakeEfadvCreateDriverQp;
  r.rdma_core_version = 44;
  return r;
}

}  // namespace verbsemu::shim::internal
