#include "shim/internal/data_path.h"

#include <errno.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <new>
#include <vector>

#include "emulate/gap_clock.h"
#include "shim/internal/boundary.h"
#include "shim/internal/defer.h"
#include "shim/internal/faults.h"
#include "shim/internal/pad_sender.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/port_link.h"
#include "shim/internal/registry.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

__attribute__((tls_model("initial-exec"))) thread_local uint32_t tl_polls = 0;

__attribute__((noinline)) uint64_t StampNow() { return emulate::ReadTsc(); }

// A wait's dither (WaitPolicy::dither_ticks): xorshift32, one state per
// thread, seeded from the TSC at the thread's first wait.
__attribute__((tls_model("initial-exec"))) thread_local uint32_t tl_dither = 0;
uint32_t DitherDraw() {
  uint32_t x = tl_dither;
  if (x == 0) x = static_cast<uint32_t>(emulate::ReadTsc()) | 1;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  tl_dither = x;
  return x;
}

struct NanoSleep {
  const emulate::TscCalibration& cal;
  void operator()(uint64_t ticks) const {
    const double ns = cal.TicksToNs(ticks);
    timespec ts;
    ts.tv_sec = static_cast<time_t>(ns / 1e9);
    ts.tv_nsec = static_cast<long>(ns - static_cast<double>(ts.tv_sec) * 1e9);
    nanosleep(&ts, nullptr);
  }
};

// LOCAL_INV and BIND_MW carry no data: their sg_list and num_sge may be
// left unset, so they must not be read.
bool OpcodeHasSgList(ibv_wr_opcode op) {
  return op != IBV_WR_LOCAL_INV && op != IBV_WR_BIND_MW;
}

__attribute__((always_inline)) inline PostShape ScanChain(
    const ibv_send_wr* wr, const ibv_send_wr* stop) {
  PostShape shape;
  for (; wr != nullptr && wr != stop; wr = wr->next) {
    shape.Begin(FlowOf(wr->opcode));
    if (OpcodeHasSgList(wr->opcode)) {
      for (int i = 0; i < wr->num_sge; ++i) {
        shape.AddBytes(wr->sg_list[i].length);
      }
    }
  }
  return shape;
}

// Passes a post straight to the provider's op saved in the context (a QP
// the shim does not know).
template <auto Op, class Object, class Wr>
int ForwardToProvider(Object* obj, Wr* wr, Wr** bad_wr) {
  ContextState* c = E().contexts.Find(obj->context);
  if (c == nullptr || c->*Op == nullptr) {
    *bad_wr = wr;
    return EINVAL;
  }
  return (c->*Op)(obj, wr, bad_wr);
}

// The chain was passed through untouched, so the provider's bad_wr is
// already the application's WR; make sure of it (a provider bug must not
// hand the application a pointer outside its own chain).
void KeepBadWrInChain(ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  const ibv_send_wr* w = wr;
  while (w != nullptr && w != *bad_wr) w = w->next;
  if (w == nullptr) *bad_wr = wr;
}

// DeferPostSend, whose copy of the chain may run out of memory: the post
// is then refused whole, ENOMEM at its first WR, as a full send queue is
// (nothing of it was queued: the copy is made before the queue takes it).
int DeferPostSendNoThrow(QpState* q, ibv_send_wr* wr, ibv_send_wr** bad_wr,
                         uint64_t t0, uint64_t due, const LateIngress& late,
                         const void* lane) noexcept {
  try {
    if (FaultInjected(Fault::kOutOfMemory)) throw std::bad_alloc();
    return DeferPostSend(q, wr, bad_wr, t0, due, late, lane);
  } catch (const std::exception& ex) {
    BoundaryFault("ibv_post_send", ex.what(), "the post is refused (ENOMEM)");
  }
  *bad_wr = wr;
  return ENOMEM;
}

// A deferring QP's post: queued, due when the spin would have ended.
int PostDeferred(QpState* q, ibv_send_wr* wr, ibv_send_wr** bad_wr, uint64_t t0,
                 PostShape shape, ThreadCache* tc, LatencyLaw* law) {
  LateIngress late;
  const uint64_t due = DeferredDueTime(q, t0, shape, law, &late);
  // A UD post's lane is its destination's class (defer_order.h).
  const int rc = DeferPostSendNoThrow(q, wr, bad_wr, t0, due, late, law);
  if (rc != 0) {
    shape = ScanChain(wr, *bad_wr);
    q->stats.failed_posts.Add(1);
  }
  Account(tc, &q->stats, shape.wrs, shape.bytes(), 0);
  return rc;
}

// Whether `qp` is a loopback QP; a lookup only once one has been seen.
bool IsLoopbackQp(ibv_qp* qp) {
  Engine& e = E();
  if (!e.have_loopback.load(std::memory_order_acquire)) return false;
  const QpState* q = e.qps.Find(qp);
  return q != nullptr && q->qpn == qp->qp_num &&
         q->loopback.load(std::memory_order_relaxed);
}

}  // namespace

uint64_t SpinTo(Engine& e, uint64_t deadline) {
  emulate::TscClock clock{e.cal.spin_pause};
  emulate::TscClock tight{false};
  return WaitUntil(clock, tight, NanoSleep{e.cal}, e.wait,
                   e.wait.Dithered(deadline, DitherDraw()));
}

// LogGP's overheads: CPU time, never a sleep, spun as every wait's last
// stretch is (its tail and dither), so the same calibrated fixed cost holds.
uint64_t SpinCpuTo(const Engine& e, uint64_t deadline) {
  emulate::TscClock clock{e.cal.spin_pause};
  emulate::TscClock tight{false};
  return SpinWithTail(clock, tight, e.wait,
                      e.wait.Dithered(deadline, DitherDraw()));
}

void CalibrateSpin(Engine& e) {
  const emulate::TscCalibration& cal = e.cal;
  e.wait.tight_tail_ticks = 0;
  if (cal.spin_pause) {
    // Four paused reads, from the length of one over a 2 us spin (at most
    // 1 us: a preemption must not make every wait spin unpaused).
    struct Counting {
      emulate::TscClock clock;
      uint64_t relaxes = 0;
      uint64_t Now() const { return clock.Now(); }
      void Relax() {
        ++relaxes;
        clock.Relax();
      }
    } counting;
    const uint64_t t0 = emulate::ReadTsc();
    const uint64_t end = emulate::SpinUntil(counting, t0 + cal.NsToTicks(2000));
    e.wait.tight_tail_ticks =
        std::min(4 * (end - t0) / std::max<uint64_t>(counting.relaxes, 1),
                 cal.NsToTicks(1000));
  }
  // What a wait to start + 1 us and the call after it cost beyond 1 us: the
  // stamp is the next layer's first instruction (the provider's post). The
  // waits are dithered as every wait is: the median then stands for every
  // phase, where a fixed one moved it by up to a step from one calibration
  // to the next (docs/accuracy.md).
  const uint64_t step = emulate::TscReadPeriodTicks();
  e.wait.dither_ticks = step;
  uint64_t (*next)() = StampNow;
  asm volatile("" : "+r"(next));
  const uint64_t target = cal.NsToTicks(1000);
  std::vector<double> over(2001);
  for (double& o : over) {
    const uint64_t before = emulate::ReadTsc();
    SpinTo(e, before + target);
    const uint64_t after = next();
    o = after > before + target ? static_cast<double>(after - before - target)
                                : 0;
  }
  const double cost =
      emulate::SteppedMedian(std::move(over), static_cast<double>(step));
  e.cal.spin_fixed_cost_ticks =
      cost > 0 ? static_cast<uint64_t>(std::llround(cost)) : 0;
}

void AddPendingWait(ThreadCache* c) {
  if (!c->wait_pending) return;
  c->wait_pending = false;
  E().lateness.Add(c->wait_ticks, c->wait_late_ticks);
}

uint64_t WaitTo(uint64_t start, uint64_t deadline) {
  Engine& e = E();
  ThreadCache* c = e.note_lateness ? Cache() : nullptr;
  // A wait whose post has not gone yet (a batch's first leg): added before
  // this spin, whose deadline absorbs the cost.
  if (c != nullptr) AddPendingWait(c);
  const uint64_t end = SpinTo(e, deadline);
  if (c != nullptr) {
    c->wait_ticks = end - start;
    c->wait_late_ticks = end - deadline;
    c->wait_pending = true;
  }
  return end - start;
}

uint64_t WaitOneLeg(QpState* q, uint64_t t0) {
  const uint64_t deadline = OneWayDeadline(q, t0, 1);
  if (deadline <= t0) return 0;  // a target below the shim's fixed cost
  return WaitTo(t0, deadline);
}

uint64_t SpinOverhead(uint64_t t0, uint64_t wrs) {
  const Engine& e = E();
  if (!e.loggp.overhead.enabled() || wrs == 0) return t0;
  return SpinCpuTo(e, e.loggp.overhead.Deadline(t0, wrs));
}

uint64_t GapStart(QpState* q, PortLink* link, uint64_t release, uint64_t wrs) {
  const Engine& e = E();
  if (e.loggp.gap_ticks == 0 || wrs == 0) return release;
  const uint64_t span = wrs * e.loggp.gap_ticks;
  if (e.loggp.gap_port && link != nullptr) {
    return emulate::ReserveGap(*link->gap_next, release, span,
                               e.loggp.gap_burst_ticks,
                               link->gap_max_ahead_ticks);
  }
  return emulate::ReserveGap(q->gap_next, release, span,
                             e.loggp.gap_burst_ticks);
}

void SpinRecvOverhead(const ibv_wc* wc, int n) {
  uint64_t recvs = 0;
  for (int i = 0; i < n; ++i) {
    const bool received = wc[i].opcode == IBV_WC_RECV ||
                          wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    if (wc[i].status == IBV_WC_SUCCESS && received) ++recvs;
  }
  if (recvs == 0) return;
  const Engine& e = E();
  SpinCpuTo(e, e.loggp.recv_overhead.Deadline(emulate::ReadTsc(), recvs));
}

namespace {

// When a post's bytes may start on its links (`t0` when nothing limits
// them): its port's egress (paced, or padded), the inbound direction for
// what its READs and atomics bring back, and with VERBSEMU_FABRIC=links
// its peer's ingress (ingress_link.h), unless `late` takes those bytes to
// reserve later (the defer mode); the later of their reservations.
uint64_t ReserveLinks(QpState* q, PortLink* link, uint64_t t0,
                      const PostShape& shape, LateIngress* late) {
  const Engine& e = E();
  uint64_t release = t0;
  // A deferring QP's post returned at once: it queues, it does not block.
  const auto sender = q->defer != nullptr ? emulate::Pacer::Sender::kQueued
                                          : emulate::Pacer::Sender::kBlocking;
  // VERBSEMU_FABRIC=penalty: what it sends is booked on its flow at its
  // queue's head (BookLateIngress), at the rate its penalty leaves it.
  const bool flow = late != nullptr && q->flow.get() != nullptr;
  if (flow && shape.out_bytes > 0) {
    late->bytes = shape.out_bytes;
    late->start = t0;
  } else if (q->paced.load(std::memory_order_relaxed) && link->pacer_out &&
             shape.out_bytes > 0) {
    release = link->pacer_out->Reserve(t0, shape.out_bytes, sender);
    if (late != nullptr) {
      const uint64_t lead = link->pacer_out->LeadTicks(shape.out_bytes);
      late->start = std::max(t0, release - std::min(release, lead));
    }
  } else if (e.bw.pad() && shape.out_bytes > 0) {
    SendPadding(q, link, shape.out_bytes);
  }
  // Responses come back on the other direction, which padding from this
  // side cannot fill: reads are paced on the inbound link in both modes (the
  // port's ingress with VERBSEMU_FABRIC=links, which senders into it share).
  emulate::Pacer* in = q->ingress_own.load(std::memory_order_acquire);
  if (in == nullptr) in = link->pacer_in.get();
  if (in != nullptr && shape.in_bytes > 0) {
    release = std::max(release, in->Reserve(t0, shape.in_bytes, sender));
  }
  IngressLink* peer = q->ingress_peer.load(std::memory_order_acquire);
  if (peer != nullptr && !flow && shape.out_bytes > 0) {
    if (late != nullptr) {
      // Cut through: the ingress sees the bytes while the egress sends them.
      late->bytes = shape.out_bytes;
      if (late->start == 0) late->start = t0;
    } else {
      release =
          std::max(release, peer->pacer().Reserve(t0, shape.out_bytes, sender));
    }
  }
  return release;
}

// DueTime, with the peer's ingress left to `late` when it is not null.
uint64_t DueTimeOf(QpState* q, uint64_t t0, const PostShape& shape, bool* owes,
                   LatencyLaw* law, LateIngress* late) {
  // A loopback QP's traffic crosses no link: no overhead, no gap.
  const bool loopback = q->loopback.load(std::memory_order_relaxed);
  if (!loopback) t0 = SpinOverhead(t0, shape.wrs);
  PortLink* link = q->link.load(std::memory_order_acquire);
  uint64_t release =
      link != nullptr ? ReserveLinks(q, link, t0, shape, late) : t0;
  // The message starts at the later of its bandwidth's and its gap's.
  if (!loopback) release = GapStart(q, link, release, shape.wrs);
  const uint64_t legs = LatencyEnabled(q, law) ? shape.LegsOwed() : 0;
  *owes = legs > 0 || release != t0;
  const uint64_t due =
      legs > 0 ? OneWayDeadline(q, release, legs, law) : release;
  if (late != nullptr) late->latency_ticks = due - release;
  return due;
}

}  // namespace

uint64_t DueTime(QpState* q, uint64_t t0, const PostShape& shape, bool* owes,
                 LatencyLaw* law) {
  return DueTimeOf(q, t0, shape, owes, law, nullptr);
}

uint64_t DeferredDueTime(QpState* q, uint64_t t0, const PostShape& shape,
                         LatencyLaw* law, LateIngress* late) {
  bool owes = false;
  const uint64_t due = DueTimeOf(q, t0, shape, &owes, law, late);
  // VERBSEMU_FABRIC=links: the senders into a port are served in the order
  // their first bytes reach it, so the ingress is booked when the first
  // byte leaves the egress, not when the last has (a sender whose egress is
  // shared would otherwise come a whole message late to every turn). The
  // post goes at the later of the two links' dues.
  if (late->bytes == 0 || q->flow.get() != nullptr) return due;
  late->due = due;
  return std::min(due, late->start);
}

uint64_t EmulateBeforePost(QpState* q, uint64_t t0, const PostShape& shape,
                           LatencyLaw* law) {
  bool owes = false;
  const uint64_t deadline = DueTime(q, t0, shape, &owes, law);
  if (owes) return WaitTo(t0, deadline);
  // Nothing owed: `deadline` is when the overhead's spin ended (t0 without
  // one), read by the spin itself.
  return deadline - t0;
}

void RecordPostOverhead(QpState* q, uint64_t t0, uint64_t waited, uint64_t t1,
                        uint64_t t2) {
  const uint64_t t3 = emulate::ReadTsc();
  const uint64_t in_shim = (t1 - t0 - waited) + (t3 - t2);
  const uint64_t reads = 2 * E().tsc_read_cost;
  q->stats.ovh_ticks.Add(in_shim > reads ? in_shim - reads : 0);
  q->stats.ovh_samples.Add(1);
}

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept {
  Engine& e = E();
  const bool emulating = e.emulating;
  // The delay is measured from here, so the shim's own bookkeeping below is
  // absorbed into it rather than added to it.
  uint64_t t0 = emulating ? emulate::ReadTsc() : 0;
  QpState* q = LiveQp(qp);
  if (q == nullptr) q = AdoptQpNoThrow(qp);
  if (q == nullptr) {
    return ForwardToProvider<&ContextState::post_send>(qp, wr, bad_wr);
  }
  ThreadCache* tc = Cache();
  const bool sample = (++tc->sample_tick & kSampleMask) == 0;
  if (sample && !emulating) t0 = emulate::ReadTsc();
  PostShape shape = ScanChain(wr, nullptr);
  // A UD chain's delay is its first WR's destination's (peer_class.h).
  LatencyLaw* law = q->type == IBV_QPT_UD && wr != nullptr && emulating
                        ? AhLaw(wr->wr.ud.ah)
                        : nullptr;
  // A loopback QP (loopback.h) is never held: it owes no wait.
  if (q->defer != nullptr && !q->loopback.load(std::memory_order_relaxed)) {
    return PostDeferred(q, wr, bad_wr, t0, shape, tc, law);
  }
  const uint64_t waited = emulating ? EmulateBeforePost(q, t0, shape, law) : 0;
  const uint64_t t1 = sample ? emulate::ReadTsc() : 0;
  const int rc = q->ctx->post_send(qp, wr, bad_wr);
  const uint64_t t2 = sample ? emulate::ReadTsc() : 0;
  if (rc != 0) {
    KeepBadWrInChain(wr, bad_wr);
    shape = ScanChain(wr, *bad_wr);
    q->stats.failed_posts.Add(1);
  }
  Account(tc, &q->stats, shape.wrs, shape.bytes(), waited);
  AddPendingWait(tc);
  if (sample) RecordPostOverhead(q, t0, waited, t1, t2);
  return rc;
}

int PostSendDelayOnly(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  Engine& e = E();
  // A target within the shim's own fixed cost is met by the call itself:
  // no clock read, which costs more than such a target here.
  const bool waits = !e.delay.WaitsNothing();
  const uint64_t t0 = waits ? emulate::ReadTsc() : 0;
  ContextState* c = e.contexts.Find(qp->context);
  if (c == nullptr || c->post_send == nullptr) {
    *bad_wr = wr;
    return EINVAL;
  }
  if (!waits || IsLoopbackQp(qp)) return c->post_send(qp, wr, bad_wr);
  uint64_t legs = 1;
  for (const ibv_send_wr* w = wr; w != nullptr; w = w->next) {
    if (FlowOf(w->opcode) == Flow::kIn) {
      legs = 2;
      break;
    }
  }
  const uint64_t deadline = e.delay.Deadline(t0, legs);
  if (deadline > t0) WaitTo(t0, deadline);
  return c->post_send(qp, wr, bad_wr);
}

int PollCqDeferring(ibv_cq* cq, int num_entries, ibv_wc* wc) {
  DeferList* list = ListOf(cq);
  const uint64_t now = list != nullptr ? emulate::ReadTsc() : 0;
  const AppCall call(list, now);
  DrainDueOnPoll(list, now);
  const int n = PollCq(cq, num_entries, wc);
  // Nothing polled and none of the shim's own completions pending (the
  // common case of an application polling an idle CQ): one relaxed load.
  if (n == 0 && (list == nullptr ||
                 (list->synth.EmptyRelaxed() && list->sorted.EmptyRelaxed()))) {
    return 0;
  }
  return AfterPoll(list, cq, num_entries, wc, n, PollCq);
}

int ReqNotifyCqDeferring(ibv_cq* cq, int solicited_only) {
  ContextState* c = E().contexts.Find(cq->context);
  if (c == nullptr || c->req_notify_cq == nullptr) return EINVAL;
  // Armed first: a completion of what is handed over then raises its
  // event.
  const int rc = c->req_notify_cq(cq, solicited_only);
  DeferBeforeBlock(cq->context);
  return rc;
}

int PollCq(ibv_cq* cq, int num_entries, ibv_wc* wc) {
  const int n = PollCqCounted(cq, num_entries, wc);
  if (n > 0 && E().loggp.recv_overhead.enabled()) SpinRecvOverhead(wc, n);
  return n;
}

int PollCqCounted(ibv_cq* cq, int num_entries, ibv_wc* wc) {
  if ((++tl_polls & kSampleMask) != 0) {
    ContextState* c = E().contexts.Find(cq->context);
    if (c == nullptr) return -1;
    return c->poll_cq(cq, num_entries, wc);
  }
  Engine& e = E();
  const uint64_t t0 = emulate::ReadTsc();
  ContextState* c = e.contexts.Find(cq->context);
  const uint64_t t1 = emulate::ReadTsc();
  if (c == nullptr) return -1;
  e.poll_calls_sampled.Add(kSampleMask + 1);
  e.poll_ovh_ticks.Add(t1 - t0 > e.tsc_read_cost ? t1 - t0 - e.tsc_read_cost
                                                 : 0);
  e.poll_ovh_samples.Add(1);
  return c->poll_cq(cq, num_entries, wc);
}

}  // namespace verbsemu::shim::internal
