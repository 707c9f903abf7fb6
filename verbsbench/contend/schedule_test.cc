#include "verbsbench/contend/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace verbsbench::contend {
namespace {

TEST(BlockOrder, EveryBlockRunsEveryGraphOnceInASeededOrder) {
  const auto a = BlockOrder(5, 3, 7);
  ASSERT_EQ(a.size(), 15u);
  for (int block = 0; block < 3; ++block) {
    std::vector<int> ids;
    for (int i = 0; i < 5; ++i) {
      const BlockRun& r = a[static_cast<size_t>(block * 5 + i)];
      EXPECT_EQ(r.block, block);
      EXPECT_EQ(r.rep, block);
      ids.push_back(r.graph);
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids, (std::vector<int>{0, 1, 2, 3, 4}));
  }
  const auto b = BlockOrder(5, 3, 7);
  bool differs = false, shuffled = false;
  for (int seed = 8; seed < 12; ++seed) {
    const auto c = BlockOrder(5, 3, static_cast<std::uint64_t>(seed));
    for (size_t i = 0; i < a.size(); ++i) differs |= a[i].graph != c[i].graph;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].graph, b[i].graph);
    shuffled |= a[i].graph != static_cast<int>(i % 5);
  }
  EXPECT_TRUE(differs);
  EXPECT_TRUE(shuffled);
  EXPECT_TRUE(BlockOrder(0, 3, 1).empty());
}

TEST(PlanSlots, ParallelEdgesGetQpsOfTheirOwnAndGraphsShareThem) {
  SetOptions o;
  const SlotPlan plan =
      PlanSlots({ParsePlannedGraph("a>b", o), ParsePlannedGraph("a>b,a>b", o),
                 ParsePlannedGraph("a>b,b>a,c>a", o)});
  ASSERT_EQ(plan.slots.size(), 4u);
  EXPECT_EQ(plan.edge_slot[0], (std::vector<int>{0}));
  EXPECT_EQ(plan.edge_slot[1], (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.edge_slot[2], (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(plan.slots[2].src_rank, 1);
  EXPECT_EQ(plan.slots[2].dst_rank, 0);
  EXPECT_EQ(plan.slots[3].src_rank, 2);
}

TEST(PlanRun, EachRankGetsItsEndOfEveryIncidentEdge) {
  SetOptions o;
  const PlannedGraph g = ParsePlannedGraph("a>b:1K@1ms,a>c", o);
  const SlotPlan plan = PlanSlots({g});
  const RankPlans r = PlanRun(g, plan.edge_slot[0], plan.slots);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_EQ(r.at(0).size(), 2u);
  EXPECT_TRUE(r.at(0)[0].send);
  EXPECT_EQ(r.at(0)[0].bytes, 1024);
  EXPECT_EQ(r.at(0)[0].start_ns, 1000000);
  EXPECT_EQ(r.at(0)[1].edge, 1);
  ASSERT_EQ(r.at(2).size(), 1u);
  EXPECT_FALSE(r.at(2)[0].send);
  EXPECT_EQ(r.at(2)[0].edge, 1);
  EXPECT_EQ(r.at(2)[0].slot, 1);
  const RankPlans w = PlanWarmup(plan.slots, 128);
  EXPECT_EQ(w.at(0).size(), 2u);
  EXPECT_EQ(w.at(1).size(), 1u);
  EXPECT_EQ(w.at(1)[0].bytes, 128);
}

TEST(SplitEdge, WholeAndPartialWorkRequests) {
  EXPECT_EQ(SplitEdge(1 << 20, 65536).count, 16);
  EXPECT_EQ(SplitEdge(1 << 20, 65536).last_bytes, 65536);
  EXPECT_EQ(SplitEdge(100, 64).count, 2);
  EXPECT_EQ(SplitEdge(100, 64).last_bytes, 36);
  EXPECT_EQ(SplitEdge(10, 64).count, 1);
  EXPECT_EQ(SplitEdge(10, 64).last_bytes, 10);
  EXPECT_THROW(SplitEdge(0, 64), std::invalid_argument);
  EXPECT_TRUE(CarriesImmediate(0, 16));
  EXPECT_FALSE(CarriesImmediate(1, 16));
  EXPECT_TRUE(CarriesImmediate(15, 16));
  EXPECT_EQ(ImmediatesPerEdge(1), 1);
  EXPECT_EQ(ImmediatesPerEdge(16), 2);
}

// The remote clock runs 5 ms ahead; the probe of the shortest round trip
// (symmetric: 2 us each way) gives it exactly, a slow asymmetric one would
// not.
TEST(ClockOffset, CristianTakesTheShortestRoundTrip) {
  const std::int64_t ahead = 5000000;
  const std::vector<Probe> probes = {
      {1000, 1000 + 90000 + ahead, 1000 + 100000},  // 90 us out, 10 back
      {200000, 200000 + 2000 + ahead, 204000},
      {300000, 300000 + 3000 + ahead, 306000}};
  const Offset o = ClockOffset(probes);
  EXPECT_EQ(o.offset_ns, ahead);
  EXPECT_EQ(o.rtt_ns, 4000);
  EXPECT_THROW(ClockOffset({}), std::invalid_argument);
  EXPECT_EQ(StartLead(200000000, 1000), 200000000);
  EXPECT_EQ(StartLead(1000000, 100000), 2000000);
}

}  // namespace
}  // namespace verbsbench::contend
