// The ibv_qp_ex wrappers. On a recording QP (emulation on, state.h) a batch
// is recorded from wr_start to wr_complete and replayed into the provider
// after the waits (wr_recording.h), so nothing waits under the provider's
// send-queue lock. On a direct QP (the report alone, or a QP made through
// mlx5dv, whose mlx5dv_wr_* calls need the provider's batch open) the calls
// go straight through, counting the batch's WRs and bytes, and wr_complete
// runs the emulation step before the provider's. With latency alone, a QP
// whose send ops hold no READ or atomic is direct too: its batch's one
// one-way latency is waited before the provider's wr_start, and only
// wr_start is wrapped (kStart), so such a batch costs one lookup beyond the
// wait, as ibv_post_send does. Slots and wrappers come from the lists in
// qp_ex_slots.h.
#include <errno.h>

#include <algorithm>
#include <memory>
#include <new>

#include "shim/internal/boundary.h"
#include "shim/internal/data_path.h"
#include "shim/internal/defer.h"
#include "shim/internal/faults.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/qp_ex_slots.h"
#include "shim/internal/state.h"
#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {
namespace {

QpState* FindQpx(ibv_qp_ex* qpx) {
  ThreadCache* c = tl_cache;
  if (c != nullptr && c->wr_qpx == qpx) return c->wr_q;
  return E().qps.Find(&qpx->qp_base);
}

// The calling thread's open recording on `qpx`, if any.
WrRecording* Recording(const ibv_qp_ex* qpx) {
  ThreadCache* c = tl_cache;
  return c != nullptr ? c->recordings.Find(qpx) : nullptr;
}

// The provider's functions for a QP whose state is gone (being destroyed)
// into `*out`: batch control must still reach the provider, which holds its
// send-queue lock from wr_start to wr_complete or wr_abort. Only that QP's
// own functions will do (mlx5's setters and wr_complete differ from QP to
// QP); false when they are not known.
bool Fallback(ibv_qp_ex* qpx, QpExSlots* out) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.leaving_mu);
  auto it = e.leaving.find(&qpx->qp_base);
  if (it == e.leaving.end()) return false;
  *out = it->second;
  return true;
}

// A leaving QP's functions, copied for the calling thread.
thread_local QpExSlots tl_leaving;

// The provider's functions for `qpx` on the direct path; nullptr only when
// they are not known.
const QpExSlots* Direct(ibv_qp_ex* qpx, QpState** q) {
  *q = FindQpx(qpx);
  if (*q != nullptr) return &(*q)->provider;
  return Fallback(qpx, &tl_leaving) ? &tl_leaving : nullptr;
}

void AddBytes(QpState* q, uint64_t b) { q->batch.AddBytes(b); }

void ResetBatch(QpState* q) { q->batch = PostShape{}; }

void OpenDirectBatch(QpState* q, ibv_qp_ex* qpx, bool leg, uint64_t waited);

// A READ or atomic on a QP whose send ops declared none (kStart: rxe fills
// every slot): the QP is wrapped as kRoundTrips from now on, and the open
// batch, whose first one-way latency wr_start waited, owes the second at
// wr_complete.
__attribute__((noinline, cold)) void LiftFromStart(QpState* q, ibv_qp_ex* qpx) {
  q->round_trips_seen.store(true, std::memory_order_relaxed);
  WrapQpExOf(q);
  OpenDirectBatch(q, qpx, E().emulating && LatencyEnabled(q), 0);
}

void LiftToRoundTrips(QpState* q, ibv_qp_ex* qpx) {
  if (q->qpx_level.load(std::memory_order_relaxed) == QpExLevel::kStart) {
    LiftFromStart(q, qpx);
  }
}

// Opcodes: recorded, or counted and forwarded.
#define VERBSEMU_OP_WRAPPER(slot, flow, since, keep, params, args) \
  void slot##_wrapper params {                                     \
    if (WrRecording* r = Recording(qpx)) {                         \
      keep;                                                        \
      r->shape.Begin(flow);                                        \
      r->NoteWr(qpx->wr_flags, qpx->wr_id);                        \
      r->Add<&QpExSlots::slot> args; /* NOLINT */                  \
      return;                                                      \
    }                                                              \
    QpState* q = nullptr;                                          \
    const QpExSlots* p = Direct(qpx, &q);                          \
    if (q != nullptr) {                                            \
      if ((flow) == Flow::kIn) LiftToRoundTrips(q, qpx);           \
      q->batch.Begin(flow);                                        \
    }                                                              \
    if (p != nullptr && p->slot != nullptr) p->slot args;          \
  }
VERBSEMU_QP_EX_OPS(VERBSEMU_OP_WRAPPER)
#undef VERBSEMU_OP_WRAPPER

// What a recording notes of a setter's arguments beyond the call: nothing,
// except a UD batch's first destination.
template <auto Slot>
struct SetterNote {
  WrRecording* r;
  template <class... A>
  void operator()(A...) const {}
};
template <>
struct SetterNote<&QpExSlots::wr_set_ud_addr> {
  WrRecording* r;
  void operator()(ibv_qp_ex*, ibv_ah* ah, uint32_t, uint32_t) const {
    if (r->first_ud_ah == nullptr) r->first_ud_ah = ah;
  }
};

// Addressing setters: installed on recording QPs only.
// NOLINTBEGIN(bugprone-macro-parentheses): `args` is an argument list
#define VERBSEMU_SETTER_WRAPPER(slot, since, params, args) \
  void slot##_wrapper params {                             \
    if (WrRecording* r = Recording(qpx)) {                 \
      SetterNote<&QpExSlots::slot>{r} args;                \
      r->Add<&QpExSlots::slot> args; /* NOLINT */          \
      return;                                              \
    }                                                      \
    QpState* q = nullptr;                                  \
    const QpExSlots* p = Direct(qpx, &q);                  \
    if (p != nullptr && p->slot != nullptr) p->slot args;  \
  }
VERBSEMU_QP_EX_SETTERS(VERBSEMU_SETTER_WRAPPER)
#undef VERBSEMU_SETTER_WRAPPER
// NOLINTEND(bugprone-macro-parentheses)

// Data setters: recorded with a copy of what they point to, or counted and
// forwarded.
void WrSetSge(ibv_qp_ex* qpx, uint32_t lkey, uint64_t addr, uint32_t length) {
  if (WrRecording* r = Recording(qpx)) {
    r->shape.AddBytes(length);
    r->Add<&QpExSlots::wr_set_sge>(qpx, lkey, addr, length);
    return;
  }
  QpState* q = nullptr;
  const QpExSlots* p = Direct(qpx, &q);
  if (q != nullptr) AddBytes(q, length);
  if (p != nullptr) p->wr_set_sge(qpx, lkey, addr, length);
}

// ibv_sge and ibv_data_buf both carry a `length`.
template <class Piece>
uint64_t TotalLength(const Piece* pieces, size_t n) {
  uint64_t b = 0;
  for (size_t i = 0; i < n; ++i) b += pieces[i].length;
  return b;
}

void WrSetSgeList(ibv_qp_ex* qpx, size_t num_sge, const ibv_sge* sg_list) {
  if (WrRecording* r = Recording(qpx)) {
    r->shape.AddBytes(TotalLength(sg_list, num_sge));
    r->max_sges = std::max(r->max_sges, num_sge);
    r->Add<&QpExSlots::wr_set_sge_list>(qpx, num_sge,
                                        r->Keep(sg_list, num_sge));
    return;
  }
  QpState* q = nullptr;
  const QpExSlots* p = Direct(qpx, &q);
  if (q != nullptr) AddBytes(q, TotalLength(sg_list, num_sge));
  if (p != nullptr) p->wr_set_sge_list(qpx, num_sge, sg_list);
}

// Inline data is the application's to reuse once the call returns.
void WrSetInlineData(ibv_qp_ex* qpx, void* addr, size_t length) {
  if (WrRecording* r = Recording(qpx)) {
    r->shape.AddBytes(length);
    r->max_inline = std::max<uint64_t>(r->max_inline, length);
    void* copy = r->Keep(static_cast<char*>(addr), length);
    r->Add<&QpExSlots::wr_set_inline_data>(qpx, copy, length);
    return;
  }
  QpState* q = nullptr;
  const QpExSlots* p = Direct(qpx, &q);
  if (q != nullptr) AddBytes(q, length);
  if (p != nullptr) p->wr_set_inline_data(qpx, addr, length);
}

void WrSetInlineDataList(ibv_qp_ex* qpx, size_t num_buf,
                         const ibv_data_buf* buf_list) {
  if (WrRecording* r = Recording(qpx)) {
    r->shape.AddBytes(TotalLength(buf_list, num_buf));
    r->max_inline = std::max(r->max_inline, TotalLength(buf_list, num_buf));
    ibv_data_buf* copy = r->Keep(const_cast<ibv_data_buf*>(buf_list), num_buf);
    for (size_t i = 0; i < num_buf; ++i) {
      copy[i].addr = r->Keep(static_cast<char*>(copy[i].addr), copy[i].length);
    }
    r->Add<&QpExSlots::wr_set_inline_data_list>(
        qpx, num_buf, static_cast<const ibv_data_buf*>(copy));
    return;
  }
  QpState* q = nullptr;
  const QpExSlots* p = Direct(qpx, &q);
  if (q != nullptr) AddBytes(q, TotalLength(buf_list, num_buf));
  if (p != nullptr) p->wr_set_inline_data_list(qpx, num_buf, buf_list);
}

int WrComplete(ibv_qp_ex* qpx);

// Whether a direct batch's first leg may owe a wait: not when the constant
// target is within the shim's fixed cost and no latency varies (the clock
// read would cost more than such a target, as in PostSendDelayOnly).
bool FirstLegMayWait(const Engine& e) {
  return e.emulating && (!e.delay.WaitsNothing() || e.latency_law.varies() ||
                         !e.classes.laws.empty());
}

// wr_start's rare paths, out of line so the direct batch's stays lean: a QP
// whose state is gone, and a recorded batch.
__attribute__((noinline, cold)) void StartGone(ibv_qp_ex* qpx) {
  QpExSlots f;
  if (Fallback(qpx, &f) && f.wr_start != nullptr) f.wr_start(qpx);
}

// `t0`: the TSC at wr_start's entry, or 0 if not read.
__attribute__((noinline)) void StartRecorded(QpState* q, ibv_qp_ex* qpx,
                                             uint64_t t0) {
  // Serializes this QP's batches as the provider's lock would: the
  // application writes qpx->wr_id and wr_flags between wr_start and
  // wr_complete. Released in wr_complete or wr_abort.
  q->batch_mu.lock();
  WrRecording* r = Cache()->recordings.Open(qpx, q->provider, q);
  r->opened_tsc = t0 != 0 ? t0 : emulate::ReadTsc();
}

// A direct batch opened by the provider's wr_start (under its send-queue
// lock from here, so q->batch is never reset under another thread's open
// batch): `leg` whether its first one-way latency is waited, `waited` the
// ticks that took.
void OpenDirectBatch(QpState* q, ibv_qp_ex* qpx, bool leg, uint64_t waited) {
  ResetBatch(q);
  q->batch.legs_waited = leg ? 1 : 0;
  q->batch.ticks_waited = waited;
  ThreadCache* c = Cache();
  c->wr_qpx = qpx;  // the batch's op and setter calls skip the lookup
  c->wr_q = q;
}

void WrStart(ibv_qp_ex* qpx) {
  const Engine& e = E();
  // The delay and the overhead count from here, as a post's from
  // ibv_post_send: the lookup and the recording's opening are absorbed.
  const bool may_wait = FirstLegMayWait(e);
  const bool from_entry = may_wait || e.loggp.overhead.enabled();
  const uint64_t t0 = from_entry ? emulate::ReadTsc() : 0;
  QpState* q = e.qps.Find(&qpx->qp_base);
  if (q == nullptr) return StartGone(qpx);
  // Latency alone, one-way opcodes (kStart): nothing of the shim's at
  // wr_complete, which is not wrapped (so a provider's rewrite of it needs
  // no wrapping again), and no batch to open.
  const bool direct_only =
      q->qpx_level.load(std::memory_order_relaxed) == QpExLevel::kStart;
  if (!direct_only) {
    // A provider may rewrite slots outside ibv_modify_qp (mlx5 does in
    // mlx5dv_devx_qp_modify): wrap again before the batch, never after it.
    if (qpx->wr_complete != WrComplete) WrapQpExOf(q);
    if (q->record_batches) return StartRecorded(q, qpx, t0);
  }
  // The first one-way latency is waited here, before the provider takes its
  // send-queue lock, so other threads posting on this QP are not held up.
  const bool leg = e.emulating && LatencyEnabled(q);
  const uint64_t waited = leg && may_wait ? WaitOneLeg(q, t0) : 0;
  q->provider.wr_start(qpx);  // takes the provider's SQ lock
  if (direct_only) return;
  OpenDirectBatch(q, qpx, leg, waited);
}

// The QP state whose batch lock the recording holds, or nullptr when the
// QP was destroyed meanwhile (its lock and state went with it).
QpState* LockOwner(const WrRecording& r, ibv_qp_ex* qpx) {
  QpState* q = E().qps.Find(&qpx->qp_base);
  return q == r.owner() ? q : nullptr;
}

// Counts a batch the provider took (rc 0) or refused, with its wait.
void AccountBatch(ThreadCache* tc, QpState* q, const PostShape& shape, int rc,
                  uint64_t waited) {
  if (rc == 0) {
    Account(tc, &q->stats, shape.wrs, shape.bytes(), waited);
  } else {
    Account(tc, &q->stats, 0, 0, waited);
    q->stats.failed_posts.Add(1);
  }
  AddPendingWait(tc);
}

// A UD batch's law: its first WR's destination's (null: the QP's own).
LatencyLaw* BatchLaw(const WrRecording& r, const QpState& q) {
  return q.type == IBV_QPT_UD ? AhLaw(r.first_ud_ah) : nullptr;
}

// When a recorded batch's wait counts from (`t0`: wr_complete's entry): its
// wr_start, so the wrappers' own time is absorbed into the wait as a post's
// lookup is, but never earlier than twice the calibrated recording per WR
// before wr_complete (the application's own work between its calls is not
// the shim's); less the replay, which comes after the wait.
uint64_t RecordedOrigin(const WrRecording& r, uint64_t t0) {
  const RecordingCost& c = E().recording;
  if (r.opened_tsc == 0 || r.opened_tsc > t0) {
    return t0 - std::min(t0, c.whole);
  }
  const uint64_t bound = 2 * c.whole * std::max<uint64_t>(r.shape.wrs, 1);
  const uint64_t from = std::max(r.opened_tsc, t0 - std::min(t0, bound));
  return from - std::min(from, c.replay);
}

// A recorded batch on a deferring QP: queued, due when the spin would have
// ended.
int CompleteDeferred(WrRecording* r, QpState* q, uint64_t t0,
                     const PostShape& shape) {
  Engine& e = E();
  const uint64_t origin = RecordedOrigin(*r, t0);
  LateIngress late;
  const uint64_t due =
      DeferredDueTime(q, origin, shape, BatchLaw(*r, *q), &late);
  ThreadCache* tc = Cache();
  // Released first: a drainer replaying this QP's held batches takes the
  // batch lock after the queue's (the application's wr_id and wr_flags
  // live in the ibv_qp_ex it writes).
  q->batch_mu.unlock();
  std::unique_ptr<WrRecording>* slot = tc->recordings.SlotOf(r);
  int rc = ENOMEM;
  // Out of memory holding the batch: refused whole, as a full queue is.
  if (!ShimStep(
          "ibv_wr_complete",
          [&] {
            if (FaultInjected(Fault::kOutOfMemory)) throw std::bad_alloc();
            rc = DeferBatch(q, slot, origin, due, late, shape);
          },
          "the batch is refused (ENOMEM)") &&
      slot != nullptr && *slot != nullptr) {
    (*slot)->Close();
  }
  if (e.wrap.bytes) AccountBatch(tc, q, shape, rc, 0);
  return rc;
}

// A recorded batch: the waits with no lock held, then the replay under the
// batch lock (the provider takes its own inside).
int CompleteRecorded(WrRecording* r, ibv_qp_ex* qpx) {
  Engine& e = E();
  const uint64_t t0 = emulate::ReadTsc();
  QpState* q = LockOwner(*r, qpx);
  if (q == nullptr) return r->Replay(qpx);
  const PostShape shape = r->shape;
  if (q->defer != nullptr && !q->loopback.load(std::memory_order_relaxed)) {
    return CompleteDeferred(r, q, t0, shape);
  }
  q->batch_mu.unlock();
  // Holding the batch back costs time a native post does not spend: the
  // wait is shortened by it.
  const uint64_t origin = RecordedOrigin(*r, t0);
  const uint64_t waited =
      e.emulating ? EmulateBeforePost(q, origin, shape, BatchLaw(*r, *q)) : 0;
  q->batch_mu.lock();
  const uint64_t t1 = emulate::ReadTsc();
  const int rc = r->Replay(qpx);
  q->batch_mu.unlock();
  if (!e.wrap.bytes) return rc;  // latency alone: nothing counted
  ThreadCache* tc = Cache();
  const bool sample = (++tc->sample_tick & kSampleMask) == 0;
  const uint64_t t2 = sample ? emulate::ReadTsc() : 0;
  AccountBatch(tc, q, shape, rc, waited);
  if (sample) RecordPostOverhead(q, t0, waited, t1, t2);
  return rc;
}

// Latency alone: nothing is counted, and a batch owes a wait only for a
// READ or atomic in it (its first leg was waited at wr_start). The next
// wr_start resets the batch.
int WrCompleteDelayOnly(QpState* q, ibv_qp_ex* qpx) {
  if (tl_cache != nullptr) tl_cache->wr_qpx = nullptr;
  if (q->batch.LegsOwed() > 0) {
    const PostShape shape = q->batch;
    EmulateBeforePost(q, emulate::ReadTsc(), shape);
  }
  return q->provider.wr_complete(qpx);
}

int WrComplete(ibv_qp_ex* qpx) {
  Engine& e = E();
  // A direct batch this thread opened, latency alone: no recording to look
  // for (a QP's batches are either recorded or direct).
  const ThreadCache* c = tl_cache;
  if (c != nullptr && c->wr_qpx == qpx && !e.wrap.bytes) {
    return WrCompleteDelayOnly(c->wr_q, qpx);
  }
  if (WrRecording* r = Recording(qpx)) return CompleteRecorded(r, qpx);
  const bool counting = e.wrap.bytes;
  const bool emulating = e.emulating;
  uint64_t t0 = emulating && counting ? emulate::ReadTsc() : 0;
  QpState* q = FindQpx(qpx);
  if (q == nullptr) {
    QpExSlots f;
    return Fallback(qpx, &f) && f.wr_complete != nullptr ? f.wr_complete(qpx)
                                                         : EINVAL;
  }
  if (!counting) return WrCompleteDelayOnly(q, qpx);
  ThreadCache* tc = Cache();
  tc->wr_qpx = nullptr;
  const bool sample = (++tc->sample_tick & kSampleMask) == 0;
  if (sample && !emulating) t0 = emulate::ReadTsc();
  const PostShape shape = q->batch;
  ResetBatch(q);
  const uint64_t waited_here = emulating ? EmulateBeforePost(q, t0, shape) : 0;
  const uint64_t waited = waited_here + shape.ticks_waited;
  const uint64_t t1 = sample ? emulate::ReadTsc() : 0;
  const int rc = q->provider.wr_complete(qpx);
  const uint64_t t2 = sample ? emulate::ReadTsc() : 0;
  AccountBatch(tc, q, shape, rc, waited);
  if (sample) RecordPostOverhead(q, t0, waited_here, t1, t2);
  return rc;
}

// A recorded batch never reached the provider, so there is nothing of the
// provider's to abort.
void WrAbort(ibv_qp_ex* qpx) {
  if (WrRecording* r = Recording(qpx)) {
    QpState* q = LockOwner(*r, qpx);
    r->Close();
    if (q != nullptr) q->batch_mu.unlock();
    return;
  }
  QpState* q = FindQpx(qpx);
  if (q == nullptr) {
    QpExSlots f;
    if (Fallback(qpx, &f) && f.wr_abort != nullptr) f.wr_abort(qpx);
    return;
  }
  if (tl_cache != nullptr) tl_cache->wr_qpx = nullptr;
  ResetBatch(q);
  q->provider.wr_abort(qpx);
}

}  // namespace

void WrapQpEx(ibv_qp_ex* qpx, QpExSlots* provider, int rdma_core_version,
              QpExLevel level) {
#define VERBSEMU_WRAP(slot, wrapper, since, needs)        \
  if (level >= (needs) && rdma_core_version >= (since) && \
      qpx->slot != nullptr && qpx->slot != (wrapper)) {   \
    provider->slot = qpx->slot;                           \
    qpx->slot = (wrapper);                                \
  }
// Round-trip opcodes (READ, atomics) are wrapped from the lowest level: the
// latency alone needs to know a batch owes two one-way latencies.
#define VERBSEMU_WRAP_OP(slot, flow, since, keep, params, args) \
  VERBSEMU_WRAP(slot, slot##_wrapper, since,                    \
                (flow) == Flow::kIn ? QpExLevel::kStart : QpExLevel::kCount)
#define VERBSEMU_WRAP_SETTER(slot, since, params, args) \
  VERBSEMU_WRAP(slot, slot##_wrapper, since, QpExLevel::kRecord)
  VERBSEMU_QP_EX_OPS(VERBSEMU_WRAP_OP)
  VERBSEMU_QP_EX_SETTERS(VERBSEMU_WRAP_SETTER)
  VERBSEMU_QP_EX_CALLS(VERBSEMU_WRAP)
#undef VERBSEMU_WRAP_OP
#undef VERBSEMU_WRAP_SETTER
#undef VERBSEMU_WRAP
}

void WrapQpExOf(QpState* q) {
  const QpExLevel level = LevelOf(*q);
  WrapQpEx(q->qpx, &q->provider, Real().rdma_core_version, level);
  q->qpx_level.store(level, std::memory_order_relaxed);
}

void UnwrapQpEx(ibv_qp_ex* qpx, const QpExSlots& provider) {
#define VERBSEMU_UNWRAP(slot, ...) \
  if (provider.slot != nullptr) qpx->slot = provider.slot;
  VERBSEMU_QP_EX_OPS(VERBSEMU_UNWRAP)
  VERBSEMU_QP_EX_SETTERS(VERBSEMU_UNWRAP)
  VERBSEMU_QP_EX_CALLS(VERBSEMU_UNWRAP)
#undef VERBSEMU_UNWRAP
}

}  // namespace verbsemu::shim::internal
