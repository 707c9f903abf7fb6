#include "verbsbench/contend/summary.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

TEST(MergeSides, BothSidesOfEveryEdge) {
  const auto t = MergeSides(2, {{0, true, 5, 1000},
                                {0, false, 400, 1100},
                                {1, false, 300, 2100},
                                {1, true, 0, 2000}});
  EXPECT_EQ(t[0].send_start_ns, 5);
  EXPECT_EQ(t[0].send_end_ns, 1000);
  EXPECT_EQ(t[0].recv_start_ns, 400);
  EXPECT_EQ(t[0].recv_end_ns, 1100);
  EXPECT_EQ(t[1].recv_end_ns, 2100);
  EXPECT_THROW(MergeSides(2, {{0, true, 0, 1}, {0, false, 0, 1}}),
               std::runtime_error);
  EXPECT_THROW(MergeSides(1, {{0, true, 0, 1}, {0, true, 0, 1}}),
               std::runtime_error);
  EXPECT_THROW(MergeSides(1, {{3, true, 0, 1}}), std::runtime_error);
}

// --steady: the sender's completions come with its side, kept within its
// start and end and in order (the contract's), the receiver's side has none.
TEST(MergeSides, TheSendersCompletionsWithinItsStartAndEnd) {
  SideTime send{0, true, 5, 1000};
  send.completions_ns = {3, 400, 350, 1000, 1200};
  const auto t = MergeSides(1, {send, {0, false, 400, 1100}});
  EXPECT_EQ(t[0].completions_ns,
            (std::vector<std::int64_t>{5, 400, 400, 1000, 1000}));
  EXPECT_TRUE(MergeSides(1, {{0, true, 5, 1000}, {0, false, 400, 1100}})[0]
                  .completions_ns.empty());
}

// Two graphs of 1 MiB edges: alone in 10 and 12 ms (alpha from the median
// 11 ms), duplex at 11 and 22 ms per edge.
ContendData Example() {
  SetOptions o;
  o.bytes = 1 << 20;
  ContendData d;
  d.params.op = "write";
  d.params.wr_size = 65536;
  d.params.window = 4;
  d.params.seed = 9;
  d.ranks = {{0, "h", "rxe0", 1}, {1, "h", "rxe1", 1}};
  d.graphs.push_back(Measured(ParsePlannedGraph("alone: a>b", o)));
  d.graphs.push_back(Measured(ParsePlannedGraph("a>b,b>a", o)));
  d.graphs[0].runs = {
      {0, 0, MergeSides(1, {{0, true, 1, 9000000}, {0, false, 50, 10000000}})},
      {1, 1,
       MergeSides(1, {{0, true, 1, 11000000}, {0, false, 50, 12000000}})}};
  d.graphs[1].runs = {
      {0, 0, {{0, 10000000, 0, 11000000}, {0, 21000000, 0, 22000000}}}};
  d.params.port_rate_Bps = PortRate(d);
  return d;
}

TEST(Summary, AlphaPortRateAndTheTable) {
  const ContendData d = Example();
  EXPECT_DOUBLE_EQ(*Alpha(d), 11e-3 / (1 << 20));
  EXPECT_DOUBLE_EQ(d.params.port_rate_Bps, (1 << 20) / 11e-3);
  const auto rows = Summarize(d);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].graph, "alone");
  EXPECT_EQ(rows[0].runs, 2);
  EXPECT_DOUBLE_EQ(rows[0].median_ns, 11e6);
  EXPECT_DOUBLE_EQ(rows[0].min_ns, 10e6);
  EXPECT_DOUBLE_EQ(rows[0].max_ns, 12e6);
  EXPECT_DOUBLE_EQ(*rows[0].over_ref, 1.0);
  EXPECT_EQ(rows[2].transfer, "b>a");
  EXPECT_DOUBLE_EQ(*rows[2].over_ref, 2.0);
  std::ostringstream out;
  PrintTable(rows, out);
  EXPECT_NE(out.str().find("T/Tref"), std::string::npos);
  EXPECT_NE(out.str().find("b>a"), std::string::npos);
  EXPECT_NE(out.str().find("2.000"), std::string::npos);
}

TEST(Summary, WithoutAOneEdgeGraphThereIsNoReference) {
  ContendData d = Example();
  d.graphs.erase(d.graphs.begin());
  EXPECT_FALSE(Alpha(d));
  EXPECT_DOUBLE_EQ(PortRate(d), (1 << 20) / 11e-3);
  EXPECT_FALSE(Summarize(d)[0].over_ref);
}

// What verbsbench contend writes goes through the contract's writer and
// comes back through its reader (contentionfit's) unchanged.
TEST(Summary, TheFileRoundTripsThroughTheContract) {
  const ContendData d = Example();
  std::string why;
  const auto back = mc::ParseContend(mc::WriteContend(d), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->params.wr_size, 65536);
  EXPECT_EQ(back->params.seed, 9);
  ASSERT_EQ(back->ranks.size(), 2u);
  EXPECT_EQ(back->ranks[1].device, "rxe1");
  ASSERT_EQ(back->graphs.size(), 2u);
  EXPECT_EQ(back->graphs[0].name, "alone");
  EXPECT_EQ(back->graphs[1].canonical, "0>1,1>0");
  EXPECT_EQ(back->graphs[1].vertex_rank, (std::vector<int>{0, 1}));
  EXPECT_EQ(back->graphs[0].runs[1].edges[0].recv_end_ns, 12000000);
  EXPECT_EQ(back->graphs[0].runs[1].block, 1);
  EXPECT_TRUE(back->graphs[1].StaticSynchronous());
}

// One row per graph, run and edge; the unnamed graph's name (its text,
// with a comma) quoted; T = recv_end - start_offset.
TEST(Summary, EveryRunsEdgesAsCsv) {
  const ContendData d = Example();
  std::ostringstream out;
  WriteCsv(d, out);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 1u + 2 + 2);  // header, 2 runs x 1 edge, 1 x 2
  EXPECT_EQ(lines[0],
            "graph,canonical,rep,block,edge,transfer,src_rank,dst_rank,bytes,"
            "start_offset_ns,send_start_ns,send_end_ns,recv_start_ns,"
            "recv_end_ns,t_ns");
  EXPECT_EQ(lines[2],
            "alone,0>1,1,1,0,a>b,0,1,1048576,0,1,11000000,50,12000000,"
            "12000000");
  EXPECT_EQ(lines[4],
            "\"a>b,b>a\",\"0>1,1>0\",0,0,1,b>a,1,0,1048576,0,0,21000000,0,"
            "22000000,22000000");
}

}  // namespace
}  // namespace verbsbench::contend
