// The shim's state: one ContextState per emulated device context, one
// QpState per QP, and the process-wide Engine that owns them. Lookups on the
// data path are lock-free (PtrMap); writers hold Engine::mu.
#ifndef VERBSEMU_SHIM_INTERNAL_STATE_H_
#define VERBSEMU_SHIM_INTERNAL_STATE_H_

#include <infiniband/verbs.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "emulate/pad_planner.h"
#include "emulate/spin.h"
#include "emulate/topology.h"
#include "emulate/tsc.h"
#include "settings/knobs.h"
#include "shim/internal/counters.h"
#include "shim/internal/data_path.h"
#include "shim/internal/defer.h"
#include "shim/internal/device_traffic.h"
#include "shim/internal/direct_verbs.h"
#include "shim/internal/full_tables.h"
#include "shim/internal/latency_law.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/owned_mutex.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/port_link.h"
#include "shim/internal/port_traffic.h"
#include "shim/internal/post_shape.h"
#include "shim/internal/ptr_map.h"
#include "shim/internal/qp_ex_slots.h"
#include "shim/internal/verbs_ptr.h"
#include "shim/internal/wait_lateness.h"
#include "shim/internal/wait_policy.h"
#include "shim/internal/warnings.h"

namespace verbsemu::shim::internal {

constexpr int kMaxPorts = 8;
constexpr int kMaxClasses = 1 << 16;
constexpr uint64_t kSampleMask = 63;  // measure overhead on 1 call in 64

// What the settings need wrapped; everything else stays the provider's.
struct Wrapping {
  bool posts = false;  // send-side posts: latency, bandwidth or the report
  bool bytes = false;  // ibv_wr_* opcodes and setters: bandwidth or report
  bool polls = false;  // poll_cq, create_cq_ex: the report's counts only

  static Wrapping For(const Settings& s) {
    const bool report = !s.report.empty();
    const emulate::Config& c = s.engine;
    // The overhead and the gap are per WR: ibv_wr_* batches are counted.
    const bool per_wr = c.overhead_ns > 0 || c.gap_ns > 0;
    // Defer hands posts over from ibv_poll_cq too.
    return {s.emulating() || report, s.bandwidth_enabled() || report || per_wr,
            report || Deferring(s) || c.recv_overhead_ns > 0};
  }
  static bool Deferring(const Settings& s) {
    return s.engine.latency_mode == emulate::LatencyMode::kDefer &&
           s.emulating();
  }
};

struct ContextState {
  ibv_context* ctx = nullptr;
  verbs_context* vctx = nullptr;
  std::string device;
  decltype(ibv_context_ops::post_send) post_send = nullptr;
  decltype(ibv_context_ops::poll_cq) poll_cq = nullptr;
  decltype(ibv_context_ops::req_notify_cq) req_notify_cq = nullptr;
  decltype(verbs_context::create_qp_ex) create_qp_ex = nullptr;
  decltype(verbs_context::create_cq_ex) create_cq_ex = nullptr;
  decltype(verbs_context::alloc_parent_domain) alloc_parent_domain = nullptr;
  std::mutex mu;  // links
  std::array<std::unique_ptr<PortLink>, kMaxPorts> links;
  // A link class's own virtual link per port (VERBSEMU_TOPOLOGY classes
  // with a bandwidth), keyed by port * kMaxClasses + class.
  std::unordered_map<int, std::unique_ptr<PortLink>> class_links;
  Counter cqs;
};

// A connection's two ends as rdma_cm resolved them (cm_peer.h).
struct CmEnds {
  emulate::PortAddress local, peer;
};

struct QpState {
  ibv_qp* qp = nullptr;
  ContextState* ctx = nullptr;
  uint32_t qpn = 0;
  ibv_qp_type type = IBV_QPT_RC;
  ibv_qp_ex* qpx = nullptr;
  QpExSlots provider;  // the provider's ibv_qp_ex functions
  // ibv_wr_* batches are recorded and replayed after the waits (emulation
  // on; not for a QP made through mlx5dv, whose mlx5dv_wr_* calls need the
  // provider's batch open, nor, with latency alone, for one whose send ops
  // hold no READ or atomic: OneWayBatchesNeedRecording). Recorded batches are
  // serialized by batch_mu, held from wr_start to wr_complete/wr_abort except
  // during the waits.
  bool record_batches = false;
  // ibv_create_qp_ex's send ops declare no READ and no atomic.
  bool one_way_ops = false;
  // How much of qpx is wrapped (LevelOf, as WrapQpEx last installed it).
  std::atomic<QpExLevel> qpx_level{QpExLevel::kRoundTrips};
  // A round-trip opcode was used on it all the same (rxe fills every slot):
  // its batches owe a second one-way latency from then on (kRoundTrips).
  std::atomic<bool> round_trips_seen{false};
  OwnedMutex batch_mu;
  // A direct ibv_wr_* batch; serialized by the provider's send-queue lock,
  // which it holds from wr_start to wr_complete/wr_abort.
  PostShape batch;
  // Connection attributes, learnt at RTR.
  std::mutex mu;
  uint8_t port = 1;
  bool have_av = false;
  uint32_t dest_qpn = 0;  // the connected peer QP's number (RC/UC), at RTR
  ibv_ah_attr av{};
  // The two ends rdma_cm connected (cm_peer.h), for a QP without an address
  // vector; under mu.
  std::optional<CmEnds> cm_ends;
  std::atomic<PortLink*> link{nullptr};
  // VERBSEMU_FABRIC=links (ingress_link.h): its peer's port's ingress, and
  // its own port's (for what READs and atomics bring back); set with `link`.
  std::atomic<IngressLink*> ingress_peer{nullptr};
  std::atomic<emulate::Pacer*> ingress_own{nullptr};
  // VERBSEMU_FABRIC=penalty (fabric_flows.h): its flow, freed with it.
  FlowClaim flow;
  // Its posts reserve the port's virtual link (set with `link`): pace mode,
  // or pad mode for a QP that cannot be padded (no connected address
  // vector: UD, EFA SRD, iWARP, DCI).
  std::atomic<bool> paced{false};
  emulate::PadPlanner planner;  // under mu
  AhPtr pad_ah;                 // under mu; in the pad sender's PD
  // The port whose count of READ-serving QPs includes this QP; under mu.
  PortTraffic* reads_counted_on = nullptr;
  QpStats stats;
  // Its peer's link class (VERBSEMU_TOPOLOGY; -1: none) and that class's
  // latency law (null: the global one), set at RTR.
  std::atomic<int> link_class{-1};
  std::atomic<LatencyLaw*> law{nullptr};
  // Connected to its own port (loopback.h): posts go straight through.
  std::atomic<bool> loopback{false};
  // Its draws of the latency law (latency_law.h): stream and count.
  uint64_t stream = 0;
  std::atomic<uint64_t> draws{0};
  // Its own gap schedule (emulate/gap_clock.h): when it is next free.
  std::atomic<uint64_t> gap_next{0};
  // The defer mode's FIFO (null: the QP spins, or the mode is spin).
  std::unique_ptr<DeferQueue> defer;
  DeferFallback defer_fallback = DeferFallback::kNone;
};

// A destroyed QP, as the report shows it.
struct QpRecord {
  std::string device;
  uint32_t qpn = 0;
  ibv_qp_type type = IBV_QPT_RC;
  QpCounters c;
  bool loopback = false;
};

// Destroyed QPs beyond the last kKeptRetiredQps, summed per device, so that
// connection churn keeps memory and the report bounded.
constexpr size_t kKeptRetiredQps = 64;
struct FoldedQps {
  std::string device;
  uint64_t qps = 0;
  QpCounters c;
};

struct Engine {
  std::mutex mu;  // writers of the maps below
  PtrMap<ContextState> contexts{8};
  PtrMap<QpState> qps{15};
  // Objects that found a table full, per kTables row; and whether the QP
  // table is full now (adopting a QP is then not tried: no query per post).
  std::array<std::atomic<uint64_t>, kTableCount> tables_full{};
  std::atomic<bool> qps_full{false};
  std::unordered_map<const void*, std::unique_ptr<ContextState>> ctx_owner;
  std::unordered_map<const void*, std::unique_ptr<QpState>> qp_owner;
  std::deque<QpRecord> retired;   // the last kKeptRetiredQps
  std::vector<FoldedQps> folded;  // the ones before, per device
  // Retired QPs whose counters a thread cache may still name; freed once
  // none does.
  std::vector<std::unique_ptr<QpState>> graveyard;
  // The provider's ibv_qp_ex functions of QPs being destroyed (between the
  // shim forgetting them and the provider's answer): batch control on
  // them still reaches the provider's own functions for that very QP, as
  // mlx5's differ by QP type.
  std::mutex leaving_mu;
  std::unordered_map<const ibv_qp*, QpExSlots> leaving;  // under leaving_mu
  std::vector<std::string> devices_seen;
  // Configuration: written on first use (or by a test), then read-only.
  std::atomic<bool> configured{false};
  Settings settings;
  std::string config_error;
  bool patching = true;    // false: invalid configuration, pure pass-through
  bool emulating = false;  // latency or bandwidth emulation active
  Wrapping wrap;
  emulate::TscCalibration cal;
  bool calibrated = false;
  emulate::DelayModel delay;
  LogGpWaits loggp;        // data_path.h
  LatencyLaw latency_law;  // drawn per leg when it varies
  PeerClasses classes;     // VERBSEMU_TOPOLOGY (peer_class.h)
  // Loopback QPs (loopback.h): how many were seen (under mu), and whether
  // any was, which the lean post wrapper looks at before a lookup.
  uint64_t loopback_qps = 0;
  std::atomic<bool> have_loopback{false};
  uint64_t next_stream = 0;  // under mu: the next QP's stream
  uint64_t tsc_read_cost = 0;
  RecordingCost recording;  // MeasureRecordingCost(), when emulating
  WaitPolicy wait;
  // With the report: how late each wait ended (the report's "waits" line).
  bool note_lateness = false;
  WaitLateness lateness;
  Counter poll_calls_sampled, poll_ovh_ticks, poll_ovh_samples;
  DeferState defer;          // the defer mode (defer.h)
  BandwidthState bw;         // bandwidth emulation (port_link.h)
  DirectVerbsCounts direct;  // direct_verbs.h
  BypassCheck bypass;        // device_traffic.h
};

__attribute__((always_inline)) inline Engine& E() {
  static NoDestructor<Engine> engine;
  return *engine.get();
}

// Spins until `deadline` as every wait does (wait_policy.h); returns the
// reading when it ended.
uint64_t SpinTo(Engine& e, uint64_t deadline);
// Measures the shim's own spin (data_path.cc): how long its unpaused tail
// is (e.wait.tight_tail_ticks), and the median of what a spin and the call
// after it cost beyond the deadline (e.cal.spin_fixed_cost_ticks, which
// every deadline is shortened by). About 1 ms.
void CalibrateSpin(Engine& e);

// Installs a TSC calibration: the settings' delay and the wait policy in
// its ticks; when emulating, the shim's spin measured with it.
inline void ApplyCalibration(Engine& e, const emulate::TscCalibration& cal) {
  e.cal = cal;
  e.wait.sleep_above_ticks = cal.NsToTicks(WaitPolicy::kSleepAboveNs);
  e.wait.max_late_ticks = cal.NsToTicks(WaitPolicy::kMaxLateNs);
  e.wait.spin_tail_ticks = cal.NsToTicks(WaitPolicy::kSpinTailNs);
  if (e.emulating) CalibrateSpin(e);
  e.delay = emulate::DelayModel(cal.NsToTicks(e.settings.engine.latency_ns),
                                e.cal.spin_fixed_cost_ticks);
  e.latency_law.Set(e.settings.engine.latency, e.latency_law.seed(), cal);
  const emulate::Config& c = e.settings.engine;
  // The same spin as the delay's: the same (dithered) fixed cost.
  e.loggp.overhead = emulate::DelayModel(cal.NsToTicks(c.overhead_ns),
                                         e.cal.spin_fixed_cost_ticks);
  e.loggp.recv_overhead = emulate::DelayModel(cal.NsToTicks(c.recv_overhead_ns),
                                              e.cal.spin_fixed_cost_ticks);
  e.loggp.gap_ticks = cal.NsToTicks(c.gap_ns);
  e.bw.flows.ForgetPenalties();
  e.bw.penalties = c.fabric == emulate::Fabric::kPenalty
                       ? &PenaltiesOf(e.settings)
                       : nullptr;
  e.loggp.gap_port = c.gap_scope == emulate::GapScope::kPort;
  e.loggp.gap_burst_ticks =
      std::max(2 * e.loggp.gap_ticks, cal.NsToTicks(LogGpWaits::kGapBurstNs));
  e.classes.laws.clear();
  if (const auto& t = e.settings.topology) {
    for (const auto& law : t->latency) {
      e.classes.laws.push_back(law ? std::make_unique<LatencyLaw>() : nullptr);
      if (law) e.classes.laws.back()->Set(*law, e.latency_law.seed(), cal);
    }
  }
  e.wait.late_ticks.store(0, std::memory_order_relaxed);
  e.lateness.SetTailTicks(cal.NsToTicks(1000));
  e.calibrated = true;
}

// Deadline of a post of `q` that crosses the link `legs` times from
// `start`: the constant latency, or a draw per leg.
inline uint64_t OneWayDeadline(QpState* q, uint64_t start, uint64_t legs,
                               LatencyLaw* law = nullptr) {
  Engine& e = E();
  if (law == nullptr) law = q->law.load(std::memory_order_relaxed);
  if (law == nullptr) {
    if (!e.latency_law.varies()) return e.delay.Deadline(start, legs);
    law = &e.latency_law;
  }
  return e.delay.DeadlineAfter(start,
                               law->DrawTicks(legs, q->stream, &q->draws));
}

// Whether posts of `q` (to a peer of class `law`; null: q's own) owe a
// latency at all: never on a loopback QP.
inline bool LatencyEnabled(const QpState* q, const LatencyLaw* law = nullptr) {
  if (q->loopback.load(std::memory_order_relaxed)) return false;
  if (law == nullptr) law = q->law.load(std::memory_order_relaxed);
  return law != nullptr ? law->enabled() : E().delay.enabled();
}

// Whether an emulated QP whose send ops hold no READ and no atomic must
// still record its ibv_wr_* batches (QpState::record_batches): for what a
// batch tells only at wr_complete, its bytes (pace, pad), the whole batch
// (the defer queue), or a UD batch's destination and so its peer class's
// latency. Otherwise its one one-way latency is waited before the
// provider's wr_start.
inline bool OneWayBatchesNeedRecording(const Engine& e, ibv_qp_type type) {
  return e.settings.bandwidth_enabled() || e.defer.on ||
         (type == IBV_QPT_UD && !e.classes.laws.empty());
}

// How much of a QP's ibv_qp_ex the shim wraps (qp_ex_slots.h).
inline QpExLevel LevelOf(const QpState& q) {
  if (q.record_batches) return QpExLevel::kRecord;
  if (E().wrap.bytes) return QpExLevel::kCount;
  const bool one_way =
      q.one_way_ops && !q.round_trips_seen.load(std::memory_order_relaxed);
  return one_way ? QpExLevel::kStart : QpExLevel::kRoundTrips;
}

// Wraps q->qpx as LevelOf(*q) says and notes the level (qp_ex.cc).
void WrapQpExOf(QpState* q);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_STATE_H_
