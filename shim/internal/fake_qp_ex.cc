#include "shim/internal/fake_qp_ex.h"

#include <errno.h>

#include <chrono>

#include "emulate/tsc.h"

namespace verbsemu::shim::internal {
namespace {

FakeQp* Qp(ibv_qp_ex* qpx) { return reinterpret_cast<FakeQp*>(qpx); }
FakeDevice* Dev(ibv_qp_ex* qpx) { return Qp(qpx)->ctx->owner; }
bool Null(ibv_qp_ex* qpx) {
  return Dev(qpx)->null_ops.load(std::memory_order_relaxed);
}

// Folds what a WR carries into its digest.
void Fold(uint64_t* digest, const void* p, size_t n) {
  *digest = Fnv1a(*digest, p, n);
}

// The WR being built, or nullptr (noted) for a call outside any batch.
FakeWr* Current(ibv_qp_ex* qpx) {
  FakeQp* q = Qp(qpx);
  if (!q->in_batch || q->batch.empty()) {
    Dev(qpx)->calls_outside_batch.fetch_add(1);
    return nullptr;
  }
  return &q->batch.back();
}

bool Mlx5(ibv_qp_ex* qpx) {
  return Dev(qpx)->personality == Personality::kMlx5;
}

// WRs the provider holds that no polled completion has freed.
uint64_t Outstanding(const FakeQp& q) {
  return q.sq_head.load() - q.sq_tail.load();
}

// A batch's first error, returned by wr_complete (mlx5's mqp->err).
void NoteError(FakeQp* q, int err) {
  if (q->batch_err == 0) q->batch_err = err;
}

void BeginWr(ibv_qp_ex* qpx, int opcode) {
  FakeQp* q = Qp(qpx);
  if (Null(qpx)) return;
  if (!q->in_batch) {
    Dev(qpx)->calls_outside_batch.fetch_add(1);
    return;
  }
  if (Mlx5(qpx) && q->cap.max_send_wr != 0 &&
      Outstanding(*q) + q->batch.size() >= q->cap.max_send_wr) {
    NoteError(q, ENOMEM);
  }
  FakeWr w;
  w.wr_id = qpx->wr_id;
  w.opcode = opcode;
  w.signaled = (qpx->wr_flags & IBV_SEND_SIGNALED) != 0 || q->sig_all;
  q->batch.push_back(w);
}
void AddData(ibv_qp_ex* qpx, const void* data, uint64_t length) {
  if (Null(qpx)) return;
  if (FakeWr* w = Current(qpx)) {
    w->bytes += length;
    if (data != nullptr) Fold(&w->digest, data, length);
  }
}
void AddSge(ibv_qp_ex* qpx, const ibv_sge& sge) {
  if (Null(qpx)) return;
  if (FakeWr* w = Current(qpx)) {
    w->bytes += sge.length;
    Fold(&w->digest, &sge, sizeof sge);
  }
}

// The send-queue lock, and how long it was held.
void Lock(FakeQp* q) {
  EnterPostPath(q->ctx);
  q->sq_mu.lock();
  q->in_batch = true;
  q->batch_err = 0;
  q->locked_at = emulate::ReadTsc();
  q->batch.clear();
}
void Unlock(FakeQp* q) {
  const uint64_t held = emulate::ReadTsc() - q->locked_at;
  std::atomic<uint64_t>& max = q->ctx->owner->sq_held_max_ticks;
  uint64_t seen = max.load();
  while (held > seen && !max.compare_exchange_weak(seen, held)) {
  }
  q->batch.clear();
  q->in_batch = false;
  q->sq_mu.unlock();
  LeavePostPath(q->ctx);
}

void FakeWrStart(ibv_qp_ex* qpx) {
  if (!Null(qpx)) Lock(Qp(qpx));
}
void RecordBatch(FakeDevice* d, ibv_qp_ex* qpx, uint64_t tsc) {
  uint64_t total = 0;
  FakeQp* q = Qp(qpx);
  for (const FakeWr& w : q->batch) {
    total += w.bytes;
    if (d->record_posts.load(std::memory_order_relaxed)) {
      PostRecord r;
      r.tsc = tsc;
      r.qp = &qpx->qp_base;
      r.wr_id = w.wr_id;
      r.bytes = w.bytes;
      r.opcode = w.opcode;
      r.via_wr_api = true;
      r.remote_qpn = w.remote_qpn;
      r.digest = w.digest;
      d->Record(r);
    }
    const uint64_t index = q->sq_head.fetch_add(1) + 1;
    const ibv_wc_status status = FakeWrStatus(q);
    if (w.signaled || status != IBV_WC_SUCCESS) {
      FakeComplete(qpx->qp_base.send_cq, w.wr_id, IBV_WC_SEND, status, q,
                   index);
    }
  }
  d->last_post_bytes.store(total, std::memory_order_relaxed);
}
int FakeWrComplete(ibv_qp_ex* qpx) {
  const uint64_t tsc = emulate::ReadTscOrdered();  // after what came before
  FakeDevice* d = Dev(qpx);
  if (!StampPost(d, tsc)) return 0;
  FakeProviderChores(d->faults);
  int rc = 0;
  if (!Qp(qpx)->in_batch) {
    d->calls_outside_batch.fetch_add(1);
    return EINVAL;
  }
  if (d->fail_complete.load()) {
    rc = EINVAL;
  } else if (Qp(qpx)->batch_err != 0) {
    rc = Qp(qpx)->batch_err;  // rolled back, as mlx5_send_wr_complete does
  } else if (const int fault = FakePostFault(Qp(qpx)); fault != 0) {
    rc = fault;  // fake_faults.h: the batch is refused whole
  } else {
    RecordBatch(d, qpx, tsc);
  }
  Unlock(Qp(qpx));
  return rc;
}
void FakeWrAbort(ibv_qp_ex* qpx) {
  if (!Qp(qpx)->in_batch) {
    Dev(qpx)->calls_outside_batch.fetch_add(1);
    return;
  }
  Unlock(Qp(qpx));
}
// mlx5_send_wr_complete_error: rolls the batch back, unlocks, fails.
int FakeWrCompleteError(ibv_qp_ex* qpx) {
  if (Null(qpx)) return EINVAL;
  Dev(qpx)->complete_errors.fetch_add(1);
  FakeWrAbort(qpx);
  return EINVAL;
}

void FakeWrSend(ibv_qp_ex* qpx) { BeginWr(qpx, IBV_WR_SEND); }
void FakeWrSendImm(ibv_qp_ex* qpx, __be32) {
  BeginWr(qpx, IBV_WR_SEND_WITH_IMM);
}
void FakeWrRdmaWrite(ibv_qp_ex* qpx, uint32_t, uint64_t) {
  BeginWr(qpx, IBV_WR_RDMA_WRITE);
}
void FakeWrRdmaWriteImm(ibv_qp_ex* qpx, uint32_t, uint64_t, __be32) {
  BeginWr(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);
}
void FakeWrRdmaRead(ibv_qp_ex* qpx, uint32_t, uint64_t) {
  BeginWr(qpx, IBV_WR_RDMA_READ);
}
void FakeWrAtomicFetchAdd(ibv_qp_ex* qpx, uint32_t, uint64_t, uint64_t) {
  BeginWr(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
}
void FakeWrAtomicCmpSwp(ibv_qp_ex* qpx, uint32_t, uint64_t, uint64_t,
                        uint64_t) {
  BeginWr(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);
}
void FakeWrAtomicWrite(ibv_qp_ex* qpx, uint32_t, uint64_t, const void* data) {
  BeginWr(qpx, IBV_WR_ATOMIC_WRITE);
  AddData(qpx, data, 8);
}
void FakeWrSetSge(ibv_qp_ex* qpx, uint32_t lkey, uint64_t addr, uint32_t len) {
  AddSge(qpx, ibv_sge{addr, len, lkey});
}
void FakeWrSetSgeList(ibv_qp_ex* qpx, size_t n, const ibv_sge* sg) {
  for (size_t i = 0; i < n; ++i) AddSge(qpx, sg[i]);
}
void FakeWrSetInlineData(ibv_qp_ex* qpx, void* addr, size_t len) {
  AddData(qpx, addr, len);
}
void FakeWrSetInlineDataList(ibv_qp_ex* qpx, size_t n,
                             const ibv_data_buf* bufs) {
  for (size_t i = 0; i < n; ++i) AddData(qpx, bufs[i].addr, bufs[i].length);
}

// mlx5's setters, one family for RC/UC QPs and one for UD/XRC (and DC):
// each builds its own WQE layout, so a setter of the other family on a QP
// would write a malformed WQE. The limits are checked as mlx5 does.
bool IsUdXrc(const ibv_qp_ex* qpx) {
  const ibv_qp_type t = qpx->qp_base.qp_type;
  return t == IBV_QPT_UD || t == IBV_QPT_XRC_SEND;
}
template <bool kUdXrc>
bool RightFamily(ibv_qp_ex* qpx) {
  if (IsUdXrc(qpx) == kUdXrc) return true;
  Dev(qpx)->wrong_setter_calls.fetch_add(1);
  return false;
}
// Notes ENOMEM when `n` exceeds the QP's `cap` (0: not enforced).
void Limit(ibv_qp_ex* qpx, uint64_t n, uint32_t cap) {
  FakeQp* q = Qp(qpx);
  if (cap != 0 && n > cap && q->in_batch) NoteError(q, ENOMEM);
}
template <bool kUdXrc>
void Mlx5SetSge(ibv_qp_ex* qpx, uint32_t lkey, uint64_t addr, uint32_t len) {
  if (RightFamily<kUdXrc>(qpx)) FakeWrSetSge(qpx, lkey, addr, len);
}
template <bool kUdXrc>
void Mlx5SetSgeList(ibv_qp_ex* qpx, size_t n, const ibv_sge* sg) {
  if (!RightFamily<kUdXrc>(qpx)) return;
  Limit(qpx, n, Qp(qpx)->cap.max_send_sge);
  FakeWrSetSgeList(qpx, n, sg);
}
template <bool kUdXrc>
void Mlx5SetInlineData(ibv_qp_ex* qpx, void* addr, size_t len) {
  if (!RightFamily<kUdXrc>(qpx)) return;
  Limit(qpx, len, Qp(qpx)->cap.max_inline_data);
  FakeWrSetInlineData(qpx, addr, len);
}
template <bool kUdXrc>
void Mlx5SetInlineDataList(ibv_qp_ex* qpx, size_t n, const ibv_data_buf* b) {
  if (!RightFamily<kUdXrc>(qpx)) return;
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) total += b[i].length;
  Limit(qpx, total, Qp(qpx)->cap.max_inline_data);
  FakeWrSetInlineDataList(qpx, n, b);
}
template <bool kUdXrc>
void InstallMlx5Setters(ibv_qp_ex& x) {
  x.wr_set_sge = Mlx5SetSge<kUdXrc>;
  x.wr_set_sge_list = Mlx5SetSgeList<kUdXrc>;
  x.wr_set_inline_data = Mlx5SetInlineData<kUdXrc>;
  x.wr_set_inline_data_list = Mlx5SetInlineDataList<kUdXrc>;
}
void FakeWrSetUdAddr(ibv_qp_ex* qpx, ibv_ah*, uint32_t remote_qpn, uint32_t) {
  if (Null(qpx)) return;
  if (FakeWr* w = Current(qpx)) w->remote_qpn = remote_qpn;
}

}  // namespace

void InstallFakeQpEx(ibv_qp_ex& x, Personality personality, ibv_qp_type type) {
  x.wr_start = FakeWrStart;
  x.wr_complete = FakeWrComplete;
  x.wr_abort = FakeWrAbort;
  x.wr_send = FakeWrSend;
  x.wr_send_imm = FakeWrSendImm;
  x.wr_rdma_write = FakeWrRdmaWrite;
  x.wr_rdma_write_imm = FakeWrRdmaWriteImm;
  x.wr_rdma_read = FakeWrRdmaRead;
  x.wr_atomic_fetch_add = FakeWrAtomicFetchAdd;
  x.wr_atomic_cmp_swp = FakeWrAtomicCmpSwp;
  x.wr_atomic_write = FakeWrAtomicWrite;
  x.wr_set_sge = FakeWrSetSge;
  x.wr_set_sge_list = FakeWrSetSgeList;
  x.wr_set_inline_data = FakeWrSetInlineData;
  x.wr_set_inline_data_list = FakeWrSetInlineDataList;
  x.wr_set_ud_addr = FakeWrSetUdAddr;
  // wr_bind_mw, wr_local_inv, wr_send_inv, wr_send_tso, wr_set_xrc_srqn
  // stay NULL, as for a provider without them: the shim must skip them.
  if (personality != Personality::kMlx5) return;
  if (type == IBV_QPT_UD || type == IBV_QPT_XRC_SEND) {
    InstallMlx5Setters<true>(x);
  } else {
    InstallMlx5Setters<false>(x);
  }
}

void ApplyFakePersonality(FakeQp* q, ibv_qp_state state) {
  // mlx5's qp_state_max_gs: -1 from RESET until RTS; a RESET empties the
  // send queue.
  if (state == IBV_QPS_RESET) {
    q->sq_open = false;
    q->sq_tail.store(q->sq_head.load());
  }
  if (state == IBV_QPS_RTS) q->sq_open = true;
  ibv_qp_ex& x = q->qpx;
  if (q->ctx->owner->personality != Personality::kMlx5 || !x.wr_complete) {
    return;
  }
  if (state == IBV_QPS_RESET) x.wr_complete = FakeWrCompleteError;
  if (state == IBV_QPS_RTS) x.wr_complete = FakeWrComplete;
}

int FakeMlx5Refusal(const FakeQp& q, const ibv_send_wr& w) {
  const ibv_qp_cap& cap = q.cap;
  if (cap.max_send_wr != 0 && Outstanding(q) >= cap.max_send_wr) return ENOMEM;
  if (!q.sq_open) return ENOMEM;  // num_sge > qp_state_max_gs (-1)
  if (w.opcode == IBV_WR_LOCAL_INV || w.opcode == IBV_WR_BIND_MW) return 0;
  if (cap.max_send_sge != 0 && w.num_sge > static_cast<int>(cap.max_send_sge)) {
    return ENOMEM;
  }
  if ((w.send_flags & IBV_SEND_INLINE) == 0 || cap.max_inline_data == 0) {
    return 0;
  }
  uint64_t inl = 0;
  for (int i = 0; i < w.num_sge; ++i) inl += w.sg_list[i].length;
  return inl > cap.max_inline_data ? ENOMEM : 0;
}

void EnterPostPath(FakeContext* c) {
  if (c->single_threaded && c->in_post_path.fetch_add(1) != 0) {
    c->owner->concurrent_entries.fetch_add(1);
  }
  const uint64_t dwell = c->owner->post_dwell_ns.load();
  if (dwell == 0) return;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(dwell);
  while (std::chrono::steady_clock::now() < end) {
  }
}

void LeavePostPath(FakeContext* c) {
  if (c->single_threaded) c->in_post_path.fetch_sub(1);
}

}  // namespace verbsemu::shim::internal
