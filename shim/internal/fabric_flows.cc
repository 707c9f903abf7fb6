#include "shim/internal/fabric_flows.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "emulate/tsc.h"
#include "models/contention/graph.h"
#include "shim/internal/boundary.h"
#include "shim/internal/deferred_post.h"
#include "shim/internal/faults.h"
#include "shim/internal/segment_key.h"
#include "shim/internal/state.h"
#include "shim/internal/warnings.h"

namespace verbsemu::shim::internal {
namespace {

// FNV-1a: the same key hashes the same in every process of the node,
// whatever its build; never 0 (a free slot's).
uint64_t KeyHash(const std::string& key) {
  uint64_t h = 1469598103934665603ULL;
  for (const char c : key) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return h == 0 ? 1 : h;
}

bool Active(const FlowSlot& s, uint64_t now) {
  return s.pid.load(std::memory_order_acquire) > 0 &&
         (s.queued.load(std::memory_order_relaxed) > 0 ||
          s.wire_end.load(std::memory_order_relaxed) > now);
}

// A vertex per address hash, in order of first sight.
int VertexOf(uint64_t h, std::vector<uint64_t>* seen, contention::Graph* g) {
  for (size_t i = 0; i < seen->size(); ++i) {
    if ((*seen)[i] == h) return static_cast<int>(i);
  }
  seen->push_back(h);
  g->labels.push_back(std::to_string(seen->size() - 1));
  return static_cast<int>(seen->size() - 1);
}

void Free(FlowSlot* s) {
  s->queued.store(0, std::memory_order_relaxed);
  s->active_since.store(0, std::memory_order_relaxed);
  s->wire_end.store(0, std::memory_order_relaxed);
  s->pid.store(0, std::memory_order_release);
}

}  // namespace

void FlowClaim::Reset(FlowSlot* s) {
  FlowSlot* old = slot_.exchange(s, std::memory_order_acq_rel);
  if (old != nullptr) Free(old);
}

SharedFlows* FabricFlows::Table() {
  if (SharedFlows* t = table_.load(std::memory_order_acquire)) return t;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (SharedFlows* t = table_.load(std::memory_order_acquire)) return t;
  const TrafficPaths& paths = E().bypass.paths;
  std::string why;
  shared_ =
      MapShared<SharedFlows>(paths.shm_dir, FlowsSegmentName(paths), &why);
  if (shared_ == nullptr) {
    WarnOnce(WarningCode::kSharedFlowsPrivate, {why});
    own_ = std::make_unique<SharedFlows>();
  }
  SharedFlows* t = shared_ != nullptr ? shared_.get() : own_.get();
  table_.store(t, std::memory_order_release);
  return t;
}

FlowSlot* FabricFlows::Claim(const std::string& src, const std::string& dst) {
  SharedFlows* t = Table();
  const int32_t me = static_cast<int32_t>(getpid());
  Reap(emulate::ReadTsc());
  for (FlowSlot& s : t->slots) {
    int32_t free = 0;
    if (!s.pid.compare_exchange_strong(free, -me)) continue;
    s.src.store(KeyHash(src), std::memory_order_relaxed);
    s.dst.store(KeyHash(dst), std::memory_order_relaxed);
    s.queued.store(0, std::memory_order_relaxed);
    s.wire_end.store(0, std::memory_order_relaxed);
    s.pid.store(me, std::memory_order_release);
    claimed_.fetch_add(1, std::memory_order_relaxed);
    return &s;
  }
  WarnOnce(WarningCode::kFabricFlowsFull,
           {std::to_string(SharedFlows::kSlots)});
  return nullptr;
}

double FabricFlows::Penalty(const FlowSlot& self, uint64_t now,
                            const contention::PenaltyFile& penalties,
                            uint64_t* latest) noexcept {
  // Drainers (a post, a poll, the progress thread) book here: the graph's
  // allocation failing must not end the process.
  try {
    if (FaultInjected(Fault::kOutOfMemory)) throw std::bad_alloc();
    return PenaltyOf(self, now, penalties, latest);
  } catch (const std::exception& ex) {
    BoundaryFault("VERBSEMU_FABRIC=penalty", ex.what(),
                  "this WR is booked at its port's whole rate");
  }
  return 1;
}

double FabricFlows::PenaltyOf(const FlowSlot& self, uint64_t now,
                              const contention::PenaltyFile& penalties,
                              uint64_t* latest) {
  SharedFlows* t = Table();
  contention::Graph g;
  std::vector<uint64_t> seen;
  const uint64_t self_src = self.src.load(std::memory_order_relaxed);
  const uint64_t self_dst = self.dst.load(std::memory_order_relaxed);
  if (self_src == self_dst) return 1;  // not through the network
  // Self is edge 0; the others as many as the model takes.
  g.edges.push_back(
      {VertexOf(self_src, &seen, &g), VertexOf(self_dst, &seen, &g)});
  for (const FlowSlot& s : t->slots) {
    if (&s == &self) continue;
    if (!Active(s, now)) {
      // A flow that left: when its last byte was through.
      const uint64_t left = s.wire_end.load(std::memory_order_relaxed);
      if (latest != nullptr && s.pid.load(std::memory_order_relaxed) > 0 &&
          left <= now) {
        *latest = std::max(*latest, left);
      }
      continue;
    }
    if (latest != nullptr) {
      *latest =
          std::max(*latest, s.active_since.load(std::memory_order_relaxed));
    }
    const uint64_t src = s.src.load(std::memory_order_relaxed);
    const uint64_t dst = s.dst.load(std::memory_order_relaxed);
    if (src == dst) continue;
    g.edges.push_back({VertexOf(src, &seen, &g), VertexOf(dst, &seen, &g)});
    if (g.edges.size() >= contention::kMaxEdges) break;
  }
  if (g.edges.size() == 1) return 1;
  return Memoized(g, penalties);
}

void FabricFlows::ForgetPenalties() {
  const std::lock_guard lock(memo_mu_);
  memo_.clear();
  memo_of_ = nullptr;
}

double FabricFlows::Memoized(const contention::Graph& g,
                             const contention::PenaltyFile& penalties) {
  constexpr size_t kMemoEntries = 4096;  // then it starts again
  std::string key;
  for (const contention::Edge& edge : g.edges) {
    key += static_cast<char>(edge.src);
    key += static_cast<char>(edge.dst);
  }
  {
    std::unique_lock lock(memo_mu_, std::try_to_lock);
    if (lock.owns_lock() && memo_of_ == &penalties) {
      const auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
    }
  }
  double rho = penalties(g).front();
  rho = std::isfinite(rho) && rho >= 1 ? rho : 1;
  std::unique_lock lock(memo_mu_, std::try_to_lock);
  if (lock.owns_lock()) {
    if (memo_of_ != &penalties || memo_.size() >= kMemoEntries) {
      memo_.clear();
      memo_of_ = &penalties;
    }
    memo_.emplace(std::move(key), rho);
  }
  return rho;
}

void NoteQueued(FlowSlot& flow, uint64_t now) {
  const bool idle = flow.queued.load(std::memory_order_relaxed) <= 0 &&
                    flow.wire_end.load(std::memory_order_relaxed) <= now;
  if (idle) flow.active_since.store(now, std::memory_order_relaxed);
  flow.queued.fetch_add(1, std::memory_order_relaxed);
}

namespace {

// The TSC ticks `bytes` take at `bps` (0: none).
uint64_t WireTicks(uint64_t bytes, double bps) {
  if (bps <= 0) return 0;
  return E().cal.NsToTicks(8.0 * static_cast<double>(bytes) / bps * 1e9);
}

// When the booking `late` may be handed over: its end less the real link's
// own time for its bytes (as a pacer's release is), plus its latency.
uint64_t HandOverAt(const PortLink& link, const LateIngress& late) {
  const uint64_t span = late.end - late.start;
  return late.end - std::min(span, WireTicks(late.bytes, link.real_bps)) +
         late.latency_ticks;
}

void Book(Engine& e, const PortLink& link, FlowSlot& flow, LateIngress* late,
          uint64_t now) {
  late->rho = e.bw.flows.Penalty(flow, now, *e.bw.penalties);
  late->start =
      std::max(late->start, flow.wire_end.load(std::memory_order_relaxed));
  late->end = late->start + static_cast<uint64_t>(
                                late->rho * static_cast<double>(WireTicks(
                                                late->bytes, link.target_bps)));
  late->mark = late->start;
  flow.wire_end.store(late->end, std::memory_order_relaxed);
}

// A booking whose penalty changed since `mark` (flows became active or
// left): from the latest such change on, the bytes left at the new
// penalty, as the fluid model has it (a change that cannot be dated
// counts from `mark`).
void Rerate(Engine& e, FlowSlot& flow, LateIngress* late, uint64_t now) {
  uint64_t changed = 0;
  const double rho = e.bw.flows.Penalty(flow, now, *e.bw.penalties, &changed);
  if (std::abs(rho - late->rho) <= late->rho * 1e-9) return;
  const uint64_t from = std::max(changed, late->mark);
  if (from >= late->end) return;  // the booking was through before it
  const double left = static_cast<double>(late->end - from);
  late->end = from + static_cast<uint64_t>(left * rho / late->rho);
  late->mark = from;
  late->rho = rho;
  flow.wire_end.store(late->end, std::memory_order_relaxed);
}

// How often a booking is looked at before its end, so that a flow leaving
// shortens it: an eighth of its span, not under 100 us (a WR that short
// is looked at only at its end).
uint64_t LookAgainTicks(const LateIngress& late) {
  return std::max<uint64_t>((late.end - late.start) / 8,
                            E().cal.NsToTicks(100e3));
}

}  // namespace

const contention::PenaltyFile& PenaltiesOf(const Settings& s) {
  static const contention::PenaltyFile kDefault{
      contention::FindModel("mm2011-node"), {}};
  return s.penalties != nullptr ? s.penalties->penalties : kDefault;
}

std::string PenaltiesName(const Settings& s) {
  return s.penalties != nullptr ? s.penalties->source : "mm2011-node";
}

uint64_t FlowDue(QpState* q, FlowSlot& flow, LateIngress* late, uint64_t now) {
  Engine& e = E();
  const bool booked = late->rho > 0;
  if (!booked) flow.queued.fetch_sub(1, std::memory_order_relaxed);
  const PortLink* link = q->link.load(std::memory_order_acquire);
  if (now == kNeverDue || link == nullptr || link->target_bps <= 0 ||
      e.bw.penalties == nullptr) {
    *late = LateIngress{};
    return 0;
  }
  if (booked) {
    Rerate(e, flow, late, now);
  } else {
    Book(e, *link, flow, late, now);
    e.bw.flows.Reap(now);
  }
  const uint64_t hand = HandOverAt(*link, *late);
  if (hand <= now) {
    *late = LateIngress{};
    return 0;
  }
  return std::min(hand, now + LookAgainTicks(*late));
}

void FabricFlows::Reap(uint64_t now) {
  uint64_t next = next_reap_.load(std::memory_order_relaxed);
  if (now < next || !next_reap_.compare_exchange_strong(
                        next, now + E().cal.NsToTicks(100e6))) {
    return;
  }
  SharedFlows* t = Table();
  const int32_t me = static_cast<int32_t>(getpid());
  for (FlowSlot& s : t->slots) {
    int32_t pid = s.pid.load(std::memory_order_acquire);
    if (pid <= 0 || pid == me) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (s.pid.compare_exchange_strong(pid, -me)) Free(&s);
  }
}

}  // namespace verbsemu::shim::internal
