// The wrappers the shim installs in each context's ops table, and the
// emulation step every send-side post goes through.
#ifndef VERBSEMU_SHIM_INTERNAL_DATA_PATH_H_
#define VERBSEMU_SHIM_INTERNAL_DATA_PATH_H_

#include <infiniband/verbs.h>

#include <cstdint>

#include "emulate/spin.h"
#include "shim/internal/deferred_post.h"
#include "shim/internal/post_shape.h"

namespace verbsemu::shim::internal {

// LogGP's knobs as the data path spends them (Engine::loggp): o, spun per WR
// posted and per receive completion polled, and g in ticks (0: none), on
// each QP's schedule or its port's.
struct LogGpWaits {
  emulate::DelayModel overhead, recv_overhead;
  uint64_t gap_ticks = 0;
  bool gap_port = false;
  // How far a sender may fall behind its gap schedule and catch up
  // (emulate/gap_clock.h): kGapBurstNs, and never less than two gaps.
  static constexpr double kGapBurstNs = 20'000;
  uint64_t gap_burst_ticks = 0;
};

struct PortLink;
struct QpState;
struct ThreadCache;
class LatencyLaw;

// Everything between the application's call and the real post: padding
// before the outbound data, pacing of each direction, then the calibrated
// wait (two one-way latencies when a READ or atomic is in the post). `t0`
// is when the call entered the shim. Returns the ticks spent waiting and
// padding.
// `law`: the destination's class (a UD post's address handle), when not
// the QP's own.
uint64_t EmulateBeforePost(QpState* q, uint64_t t0, const PostShape& shape,
                           LatencyLaw* law = nullptr);
// What EmulateBeforePost waits for, without waiting (the defer mode): the
// TSC at which the post may reach the provider; `*owes` false when nothing
// (no pacing, no latency) holds it back.
// The posting call's overhead (LogGP's o, VERBSEMU_OVERHEAD) is spun here
// first, inside the call whichever the mode; the message then starts no
// sooner than its gap (VERBSEMU_GAP) allows.
uint64_t DueTime(QpState* q, uint64_t t0, const PostShape& shape, bool* owes,
                 LatencyLaw* law = nullptr);
// The defer mode's DueTime: the bytes a post sends into its peer's ingress
// are not reserved yet but left in `*late` (deferred_post.h), for its queue
// to reserve when the post is at its head and due (defer.cc). Under
// VERBSEMU_FABRIC=links it is due for that when its first byte leaves its
// egress (late->start), and its egress's own due is kept in late->due.
uint64_t DeferredDueTime(QpState* q, uint64_t t0, const PostShape& shape,
                         LatencyLaw* law, LateIngress* late);

// LogGP's o: spins (CPU time, never a sleep) from `t0` for the overhead of
// `wrs` WRs; returns when it ended (`t0` when there is none).
uint64_t SpinOverhead(uint64_t t0, uint64_t wrs);
// LogGP's g: reserves `wrs` gaps on `q`'s schedule, or its port's `link`'s
// (VERBSEMU_GAP_SCOPE=port); returns when the first message may start, no
// sooner than `release`.
uint64_t GapStart(QpState* q, PortLink* link, uint64_t release, uint64_t wrs);
// The receive side's o: spins per successful receive completion in `wc`.
void SpinRecvOverhead(const ibv_wc* wc, int n);

// Waits from `start` until `deadline` (TSC ticks): sleeps the long ones'
// start, spins the rest (wait_policy.h); with the report on, notes in the
// thread's cache how late it ended. Returns the ticks from `start` to the
// end of the wait.
uint64_t WaitTo(uint64_t start, uint64_t deadline);

// After the real post: adds the thread's noted wait, if any, to the
// report's WaitLateness.
void AddPendingWait(ThreadCache* c);

// Waits one one-way latency of `q` from `t0`; returns the ticks waited.
uint64_t WaitOneLeg(QpState* q, uint64_t t0);

// Records the shim's own cost of one sampled post: the time from entry to
// the real post and after it, less waiting and the TSC reads themselves.
void RecordPostOverhead(QpState* q, uint64_t t0, uint64_t waited, uint64_t t1,
                        uint64_t t2);

// noexcept: running out of memory holding a deferred post refuses it with
// ENOMEM (*bad_wr its first WR), as a full send queue does.
int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept;
// Latency alone (no bandwidth mode, no report): nothing per QP is needed, so
// this one reads the clock, finds the context's saved post_send and waits;
// no QP lookup, byte scan or counters.
int PostSendDelayOnly(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
// The counted poll, then the receive side's overhead for what it returned.
int PollCq(ibv_cq* cq, int num_entries, ibv_wc* wc);
// The provider's poll, its own cost sampled for the report.
int PollCqCounted(ibv_cq* cq, int num_entries, ibv_wc* wc);
// The defer mode's poll: hands over the CQ's QPs' due posts first, and
// adds the shim's own completions (defer_synth.h).
int PollCqDeferring(ibv_cq* cq, int num_entries, ibv_wc* wc);
// The defer mode's CQ arming: an application about to sleep on its
// completion channel; what is due is handed over once the CQ is armed.
int ReqNotifyCqDeferring(ibv_cq* cq, int solicited_only);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DATA_PATH_H_
