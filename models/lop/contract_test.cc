#include "models/lop/contract.h"

#include <gtest/gtest.h>

#include "models/lop/formulas.h"

namespace verbsbench::lop {
namespace {

TEST(Contract, CurveNames) {
  EXPECT_EQ(RoundCurveName("1:n", "send", true, false), "round_1n_send_inline");
  EXPECT_EQ(RoundCurveName("1:n", "send", false, true),
            "round_1n_send_normal_list");
  EXPECT_EQ(RttCurveName("1:n", "send", true, false), "rtt_1n_send_inline");
  EXPECT_EQ(RttCurveName("n:1", "write", false, false), "rtt_n1_write_normal");
  EXPECT_EQ(RttCurveName("1:n", "send", true, true), "rtt_1n_send_inline_list");
  EXPECT_EQ(SendOverheadCurveName("send", false, true),
            "os_send_single_inline");
  EXPECT_EQ(SendOverheadCurveName("write", true, false), "os_write_list");
  EXPECT_EQ(RecvOverheadCurveName(false), "or_recv_single");
  EXPECT_EQ(RecvOverheadCurveName(true), "or_recv_list");
  EXPECT_EQ(LatencyCurveName("1:n", "send", false, false), "L_1n_send_normal");
  EXPECT_EQ(LatencyCurveName("n:1", "write", true, true),
            "Llist_n1_write_inline");
  EXPECT_TRUE(NameSaysInline(SendOverheadCurveName("send", true, true)));
  EXPECT_FALSE(NameSaysInline(RttCurveName("1:n", "send", false, false)));
  EXPECT_TRUE(NameSaysInline(RoundCurveName("1:n", "send", true, true)));
  EXPECT_FALSE(NameSaysInline(RoundCurveName("1:n", "send", false, true)));
}

TEST(Contract, KindsRoundTrip) {
  for (Kind k : {Kind::kRound, Kind::kRtt, Kind::kOverhead, Kind::kLatency}) {
    ASSERT_TRUE(ParseKind(KindName(k)).has_value()) << KindName(k);
    EXPECT_EQ(*ParseKind(KindName(k)), k);
  }
  EXPECT_STREQ(KindName(Kind::kRound), "round");
  EXPECT_STREQ(KindName(Kind::kRtt), "rtt");
  EXPECT_STREQ(KindName(Kind::kOverhead), "overhead");
  EXPECT_STREQ(KindName(Kind::kLatency), "latency");
  EXPECT_FALSE(ParseKind("bandwidth").has_value());
  EXPECT_FALSE(ParseKind("").has_value());
}

TEST(Formulas, LatencyAndPrediction) {
  EXPECT_DOUBLE_EQ(PerPeer(800, 4), 200);
  EXPECT_DOUBLE_EQ(Rtt2(200), 100);
  EXPECT_DOUBLE_EQ(PostMultiplier(false, 4), 1);
  EXPECT_DOUBLE_EQ(PostMultiplier(true, 4), 4);
  // L(p) = RTT2(p) - (o_s(p) + o_s(1))
  EXPECT_DOUBLE_EQ(Latency(100, 12, 10, PostMultiplier(false, 2)), 78);
  // L_list(p) = RTT2(p) - (p * o_s_list(p) + o_s(1))
  EXPECT_DOUBLE_EQ(Latency(100, 8, 10, PostMultiplier(true, 2)), 74);
  // t_1:n = o(n) + n L(n); t^list_1:n = n o(n) + n L(n)
  EXPECT_DOUBLE_EQ(PredictedTime(12, 78, 2, 1), 168);
  EXPECT_DOUBLE_EQ(PredictedTime(8, 74, 2, 2), 164);
}

}  // namespace
}  // namespace verbsbench::lop
