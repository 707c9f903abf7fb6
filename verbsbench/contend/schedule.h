// When and where `verbsbench contend` runs each graph: the randomized
// complete blocks, the RC QPs (slots) every graph's edges run on, what each
// rank does in one run, how an edge splits into work requests, and the
// common start (Cristian's clock offset, the lead of the start time).
#ifndef VERBSBENCH_CONTEND_SCHEDULE_H_
#define VERBSBENCH_CONTEND_SCHEDULE_H_

#include <cstdint>
#include <map>
#include <vector>

#include "verbsbench/contend/graph_set.h"

namespace verbsbench::contend {

struct BlockRun {
  int graph = 0, rep = 0, block = 0;
};

// `reps` blocks, each running every graph once in an order drawn from
// `seed` (the same seed, the same order); rep == block.
std::vector<BlockRun> BlockOrder(int graphs, int reps, std::uint64_t seed);

// One RC QP pair: the sender's QP on src_rank, the receiver's on dst_rank.
struct Slot {
  int src_rank = 0, dst_rank = 0;
};

struct SlotPlan {
  std::vector<Slot> slots;
  std::vector<std::vector<int>> edge_slot;  // per graph, per edge: its slot
};

// Vertex v runs on rank v. Every graph's edges between two ranks take the
// slots of that pair in order (parallel edges: one QP each); graphs share
// slots, so the QPs are connected once, before any timing.
SlotPlan PlanSlots(const std::vector<PlannedGraph>& graphs);

// One edge as one of its two ranks runs it.
struct PlanEdge {
  int edge = 0, slot = 0;
  bool send = true;  // this rank's end: the sender or the receiver
  std::int64_t bytes = 0, start_ns = 0;
};
using RankPlans = std::map<int, std::vector<PlanEdge>>;  // by rank

// What each rank of graph `g` does (edges on the slots edge_slot names).
RankPlans PlanRun(const PlannedGraph& g, const std::vector<int>& edge_slot,
                  const std::vector<Slot>& slots);
// The untimed warm-up: every slot moves `bytes` once.
RankPlans PlanWarmup(const std::vector<Slot>& slots, std::int64_t bytes);

// An edge's work requests: `count` of wr_size bytes but the last, which
// carries `last_bytes`. The first and the last are RDMA WRITE WITH
// IMMEDIATE (the receiver's start and end), the others RDMA WRITE.
struct WrSplit {
  std::int64_t count = 0, last_bytes = 0;
};
WrSplit SplitEdge(std::int64_t bytes, std::int64_t wr_size);
bool CarriesImmediate(std::int64_t wr, std::int64_t count);
std::int64_t ImmediatesPerEdge(std::int64_t count);

// One clock probe: the root's send and receive times around the remote's
// reading of its own clock.
struct Probe {
  std::int64_t sent_ns = 0, remote_ns = 0, received_ns = 0;
};
struct Offset {
  std::int64_t offset_ns = 0;  // remote clock − root clock
  std::int64_t rtt_ns = 0;     // of the probe it came from
};
inline constexpr int kClockProbes = 16;
// Cristian: the probe of the shortest round trip, the remote's reading
// taken to be at its midpoint. Throws std::invalid_argument on no probe.
Offset ClockOffset(const std::vector<Probe>& probes);

// The start time's lead over now: at least min_lead_ns and 20 control
// round trips.
std::int64_t StartLead(std::int64_t min_lead_ns, std::int64_t max_rtt_ns);

}  // namespace verbsbench::contend

#endif  // VERBSBENCH_CONTEND_SCHEDULE_H_
