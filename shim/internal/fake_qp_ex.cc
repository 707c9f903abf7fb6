#include "shim/internal/fake_qp_ex.h"

#include <errno.h>

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

void BeginWr(ibv_qp_ex* qpx, int opcode) {
  FakeQp* q = Qp(qpx);
  if (Null(qpx)) return;
  if (!q->in_batch) {
    Dev(qpx)->calls_outside_batch.fetch_add(1);
    return;
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
  q->sq_mu.lock();
  q->in_batch = true;
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
}

void FakeWrStart(ibv_qp_ex* qpx) {
  if (!Null(qpx)) Lock(Qp(qpx));
}
void RecordBatch(FakeDevice* d, ibv_qp_ex* qpx, uint64_t tsc) {
  uint64_t total = 0;
  for (const FakeWr& w : Qp(qpx)->batch) {
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
    if (w.signaled) {
      FakeComplete(qpx->qp_base.send_cq, w.wr_id, IBV_WC_SEND);
    }
  }
  d->last_post_bytes.store(total, std::memory_order_relaxed);
}
int FakeWrComplete(ibv_qp_ex* qpx) {
  const uint64_t tsc = emulate::ReadTsc();
  FakeDevice* d = Dev(qpx);
  if (!StampPost(d, tsc)) return 0;
  int rc = 0;
  if (!Qp(qpx)->in_batch) {
    d->calls_outside_batch.fetch_add(1);
    return EINVAL;
  }
  if (d->fail_complete.load()) {
    rc = EINVAL;
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
void FakeWrSetUdAddr(ibv_qp_ex* qpx, ibv_ah*, uint32_t remote_qpn, uint32_t) {
  if (Null(qpx)) return;
  if (FakeWr* w = Current(qpx)) w->remote_qpn = remote_qpn;
}

}  // namespace

void InstallFakeQpEx(ibv_qp_ex& x) {
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
}

void ApplyFakePersonality(FakeQp* q, ibv_qp_state state) {
  ibv_qp_ex& x = q->qpx;
  if (q->ctx->owner->personality != Personality::kMlx5 || !x.wr_complete) {
    return;
  }
  if (state == IBV_QPS_RESET) x.wr_complete = FakeWrCompleteError;
  if (state == IBV_QPS_RTS) x.wr_complete = FakeWrComplete;
}

}  // namespace verbsemu::shim::internal
