// The contention measurement contract: what the writer writes the reader
// reads back, and every breach of the contract is one line naming where.
#include "models/contention/contend_data.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace verbsemu::contention {
namespace {

using nlohmann::json;

ContendData Sample() {
  ContendData d;
  d.params = {262144.0, "write", 32768, 4, 7};
  d.ranks = {{0, "h0", "rxe0", 1}, {1, "h1", "rxe1", 1}, {2, "h2", "rxe2", 2}};
  MeasuredGraph g;
  std::string why;
  g.name = "fan-out";
  g.graph = ParseGraph("x>y,x>z", &why).value();
  g.canonical = "0>1,0>2";
  g.vertex_rank = {2, 0, 1};
  g.edges = {{524288, 0}, {524288, 0}};
  g.runs = {{0, 1, {{10, 4000000, 0, 4000100}, {12, 4000005, 3, 4000200}}},
            {1, 0, {{11, 4100000, 0, 4100100}, {13, 4100005, 3, 4100300}}}};
  // --steady: run 1's first edge recorded its WRs' completions.
  g.runs[1].edges[0].completions_ns = {1000000, 2000000, 2000000, 4100000};
  d.graphs.push_back(g);
  return d;
}

TEST(ContendData, WrittenIsReadBack) {
  const ContendData d = Sample();
  std::string why;
  const auto r = ParseContend(WriteContend(d), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->params.port_rate_Bps, 262144.0);
  EXPECT_EQ(r->params.op, "write");
  EXPECT_EQ(r->params.wr_size, 32768);
  EXPECT_EQ(r->params.window, 4);
  EXPECT_EQ(r->params.seed, 7);
  ASSERT_EQ(r->ranks.size(), 3u);
  EXPECT_EQ(r->ranks[2].device, "rxe2");
  EXPECT_EQ(r->ranks[2].port, 2);
  ASSERT_EQ(r->graphs.size(), 1u);
  const MeasuredGraph& g = r->graphs[0];
  EXPECT_EQ(g.name, "fan-out");
  EXPECT_EQ(g.graph.ToString(), "x>y,x>z");
  EXPECT_EQ(g.canonical, "0>1,0>2");
  EXPECT_EQ(g.vertex_rank, (std::vector<int>{2, 0, 1}));
  ASSERT_EQ(g.runs.size(), 2u);
  EXPECT_EQ(g.runs[0].block, 1);
  EXPECT_EQ(g.runs[1].edges[1].recv_end_ns, 4100300);
  EXPECT_EQ(g.runs[1].edges[1].send_start_ns, 13);
  EXPECT_EQ(g.runs[0].edges[1].recv_start_ns, 3);
  EXPECT_EQ(g.runs[0].edges[0].send_end_ns, 4000000);
  EXPECT_EQ(g.runs[1].edges[0].completions_ns,
            (std::vector<std::int64_t>{1000000, 2000000, 2000000, 4100000}));
  EXPECT_TRUE(g.runs[0].edges[0].completions_ns.empty());
  EXPECT_FALSE(
      json::parse(WriteContend(d))["graphs"][0]["runs"][0]["edges"][0].contains(
          "completions_ns"));
  EXPECT_TRUE(g.StaticSynchronous());
  EXPECT_EQ(WriteContend(*r), WriteContend(d));
}

TEST(ContendData, StaticSynchronousNeedsOneSizeAndStartZero) {
  MeasuredGraph g = Sample().graphs[0];
  g.edges[1].bytes = 1;
  EXPECT_FALSE(g.StaticSynchronous());
  g.edges[1] = {524288, 5};
  EXPECT_FALSE(g.StaticSynchronous());
}

struct Breach {
  const char* name;
  std::function<void(json&)> change;
  const char* why;  // the message contains this
};

class ContendBreach : public ::testing::TestWithParam<Breach> {};

TEST_P(ContendBreach, IsOneLineSayingWhere) {
  json doc = json::parse(WriteContend(Sample()));
  GetParam().change(doc);
  std::string why;
  EXPECT_FALSE(ParseContend(doc.dump(), &why));
  EXPECT_NE(why.find(GetParam().why), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

json& Run0(json& d) { return d["graphs"][0]["runs"][0]; }
json& Steady(json& d) {
  return d["graphs"][0]["runs"][1]["edges"][0]["completions_ns"];
}

INSTANTIATE_TEST_SUITE_P(
    All, ContendBreach,
    ::testing::Values(
        Breach{"NoSchema", [](json& d) { d.erase("schema"); },
               "not a contention measurement"},
        Breach{"NextVersion",
               [](json& d) { d["schema"] = "verbsemu.contend/2"; },
               "schema verbsemu.contend/2, this contentionfit reads "
               "verbsemu.contend/1"},
        Breach{"Foreign", [](json& d) { d["schema"] = "lop\n/1"; },
               "(schema \"lop?/1\""},
        Breach{"NoRate", [](json& d) { d["params"].erase("port_rate_Bps"); },
               "params: \"port_rate_Bps\" missing"},
        Breach{"ZeroRate", [](json& d) { d["params"]["port_rate_Bps"] = 0; },
               "\"port_rate_Bps\" must be a number > 0"},
        Breach{"Op", [](json& d) { d["params"]["op"] = "atomic"; },
               "\"op\" must be write, send or read"},
        Breach{"RankTwice", [](json& d) { d["ranks"][1]["rank"] = 0; },
               "ranks[1]: rank 0 listed twice"},
        Breach{"NoGraphs", [](json& d) { d["graphs"] = json::array(); },
               "\"graphs\" must be a list of 1 to 4096"},
        Breach{"BadGraph", [](json& d) { d["graphs"][0]["graph"] = "x>x"; },
               "graphs[0]: \"graph\": "},
        Breach{"WrongCanonical",
               [](json& d) { d["graphs"][0]["canonical"] = "0>1,2>1"; },
               "is not the graph's canonical form 0>1,0>2"},
        Breach{"VertexMissing",
               [](json& d) { d["graphs"][0]["vertices"].erase("z"); },
               "graphs[0].vertices: \"z\" missing"},
        Breach{"VertexRankUnknown",
               [](json& d) { d["graphs"][0]["vertices"]["z"] = 9; },
               "rank 9 is not in ranks"},
        Breach{"TwoVerticesOneRank",
               [](json& d) { d["graphs"][0]["vertices"]["z"] = 2; },
               "rank 2 is not in ranks or is another vertex's"},
        Breach{"PlanCount", [](json& d) { d["graphs"][0]["edges"].erase(1); },
               "graphs[0]: \"edges\" has 1 entries for 2 edges"},
        Breach{"ZeroBytes",
               [](json& d) { d["graphs"][0]["edges"][0]["bytes"] = 0; },
               "graphs[0].edges[0]: \"bytes\" must be an integer"},
        Breach{"RunCount", [](json& d) { Run0(d)["edges"].erase(0); },
               "graphs[0].runs[0]: \"edges\" has 1 entries for 2 edges"},
        Breach{"SendBackwards",
               [](json& d) { Run0(d)["edges"][1]["send_end_ns"] = 11; },
               "graphs[0].runs[0].edges[1]: \"send_end_ns\" must be an "
               "integer in [12,"},
        Breach{"ArrivesBeforeSent",
               [](json& d) {
                 Run0(d)["edges"][0]["send_start_ns"] = 5000000;
                 Run0(d)["edges"][0]["send_end_ns"] = 5000001;
               },
               "\"recv_end_ns\" must be after \"send_start_ns\""},
        Breach{"EndsBeforePlannedStart",
               [](json& d) {
                 d["graphs"][0]["edges"][1]["start_offset_ns"] = 4000200;
               },
               "graphs[0].runs[0].edges[1]: \"recv_end_ns\" must be after "
               "the edge's \"start_offset_ns\""},
        Breach{"FractionalTime",
               [](json& d) { Run0(d)["edges"][0]["recv_end_ns"] = 1.5; },
               "\"recv_end_ns\" must be an integer"},
        Breach{"NegativeTime",
               [](json& d) { Run0(d)["edges"][0]["send_start_ns"] = -1; },
               "\"send_start_ns\" must be an integer in [0,"},
        Breach{"HugeUnsigned",
               [](json& d) {
                 Run0(d)["edges"][0]["recv_end_ns"] = 18446744073709551615ULL;
               },
               "\"recv_end_ns\" must be an integer"},
        Breach{"RunNotObject", [](json& d) { Run0(d) = 3; },
               "graphs[0].runs[0]: not an object"},
        Breach{"CompletionsBackwards", [](json& d) { Steady(d)[2] = 1500000; },
               "graphs[0].runs[1].edges[0]: \"completions_ns\" must be "
               "non-decreasing integers from \"send_start_ns\" to "
               "\"send_end_ns\""},
        Breach{"CompletionAfterEnd", [](json& d) { Steady(d)[3] = 4100001; },
               "\"completions_ns\" must be non-decreasing"},
        Breach{"CompletionBeforeStart", [](json& d) { Steady(d)[0] = 10; },
               "\"completions_ns\" must be non-decreasing"},
        Breach{"CompletionsNotAList", [](json& d) { Steady(d) = 5; },
               "\"completions_ns\" must be a list of 1 to 65536"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ContendData, NotJsonIsOneLine) {
  std::string why;
  EXPECT_FALSE(ParseContend("", &why));
  EXPECT_EQ(why, "empty file");
  const std::string cut = WriteContend(Sample());
  EXPECT_FALSE(ParseContend(cut.substr(0, cut.size() / 2), &why));
  EXPECT_EQ(why, "not a complete JSON document");
}

}  // namespace
}  // namespace verbsemu::contention
