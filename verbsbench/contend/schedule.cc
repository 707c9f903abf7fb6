#include "verbsbench/contend/schedule.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

namespace verbsbench::contend {

std::vector<BlockRun> BlockOrder(int graphs, int reps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BlockRun> order;
  std::vector<int> ids(static_cast<size_t>(std::max(graphs, 0)));
  for (int block = 0; block < reps; ++block) {
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int g : ids) order.push_back({g, block, block});
  }
  return order;
}

SlotPlan PlanSlots(const std::vector<PlannedGraph>& graphs) {
  SlotPlan plan;
  // (src, dst) → that pair's slots, in order.
  std::map<std::pair<int, int>, std::vector<int>> pairs;
  for (const PlannedGraph& g : graphs) {
    std::map<std::pair<int, int>, size_t> used;
    std::vector<int> edge_slot;
    for (const auto& e : g.graph.edges) {
      const std::pair<int, int> key{e.src, e.dst};
      std::vector<int>& slots = pairs[key];
      const size_t k = used[key]++;
      if (k == slots.size()) {
        slots.push_back(static_cast<int>(plan.slots.size()));
        plan.slots.push_back({e.src, e.dst});
      }
      edge_slot.push_back(slots[k]);
    }
    plan.edge_slot.push_back(std::move(edge_slot));
  }
  return plan;
}

RankPlans PlanRun(const PlannedGraph& g, const std::vector<int>& edge_slot,
                  const std::vector<Slot>& slots) {
  RankPlans plans;
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const int slot = edge_slot.at(e);
    const Slot& s = slots.at(static_cast<size_t>(slot));
    const PlanEdge side{static_cast<int>(e), slot, true, g.edges[e].bytes,
                        g.edges[e].start_offset_ns};
    plans[s.src_rank].push_back(side);
    PlanEdge recv = side;
    recv.send = false;
    plans[s.dst_rank].push_back(recv);
  }
  return plans;
}

RankPlans PlanWarmup(const std::vector<Slot>& slots, std::int64_t bytes) {
  RankPlans plans;
  for (size_t i = 0; i < slots.size(); ++i) {
    const int id = static_cast<int>(i);
    plans[slots[i].src_rank].push_back({id, id, true, bytes, 0});
    plans[slots[i].dst_rank].push_back({id, id, false, bytes, 0});
  }
  return plans;
}

WrSplit SplitEdge(std::int64_t bytes, std::int64_t wr_size) {
  if (bytes <= 0 || wr_size <= 0)
    throw std::invalid_argument("an edge needs bytes > 0 and a WR size > 0");
  const std::int64_t count = (bytes + wr_size - 1) / wr_size;
  return {count, bytes - (count - 1) * wr_size};
}

bool CarriesImmediate(std::int64_t wr, std::int64_t count) {
  return wr == 0 || wr == count - 1;
}

std::int64_t ImmediatesPerEdge(std::int64_t count) {
  return std::min<std::int64_t>(count, 2);
}

Offset ClockOffset(const std::vector<Probe>& probes) {
  if (probes.empty()) throw std::invalid_argument("no clock probe");
  const Probe* best = &probes.front();
  for (const Probe& p : probes)
    if (p.received_ns - p.sent_ns < best->received_ns - best->sent_ns)
      best = &p;
  const std::int64_t rtt = best->received_ns - best->sent_ns;
  if (rtt < 0)
    throw std::invalid_argument("a clock probe came back before it left");
  return {best->remote_ns - (best->sent_ns + rtt / 2), rtt};
}

std::int64_t StartLead(std::int64_t min_lead_ns, std::int64_t max_rtt_ns) {
  return std::max(min_lead_ns, 20 * max_rtt_ns);
}

}  // namespace verbsbench::contend
