#include "models/lop/derive.h"

#include <gtest/gtest.h>

namespace verbsbench::lop {
namespace {

using nlohmann::json;

json Curve(const std::string& name, const std::string& kind,
           std::vector<double> medians, json extra = json::object()) {
  json c = extra;
  c["name"] = name;
  c["kind"] = kind;
  c["points"] = json::array();
  for (size_t i = 0; i < medians.size(); ++i) {
    const double v = medians[i];
    c["points"].push_back({{"p", i + 1},
                           {"min_ns", v - 1},
                           {"median_ns", v},
                           {"mean_ns", v + 1},
                           {"samples", 10}});
  }
  return c;
}

const json kSendInline = {{"pattern", "1:n"}, {"op", "send"}, {"inline", true}};

TEST(DeriveCurves, RttIsTheRoundPerPeer) {
  const std::vector<json> curves = {
      Curve("round_1n_send_inline", "round", {100, 200, 300}, kSendInline)};
  const auto derived = DeriveCurves(curves);
  ASSERT_EQ(derived.size(), 1u);  // no overheads: no latency curves
  const json& rtt = derived[0];
  EXPECT_EQ(rtt["name"], "rtt_1n_send_inline");
  EXPECT_EQ(rtt["kind"], "rtt");
  EXPECT_EQ(rtt["list"], false);
  ASSERT_EQ(rtt["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(rtt["points"][0]["median_ns"], 100);
  EXPECT_DOUBLE_EQ(rtt["points"][1]["median_ns"], 100);
  EXPECT_DOUBLE_EQ(rtt["points"][2]["median_ns"], 100);
  EXPECT_DOUBLE_EQ(rtt["points"][1]["min_ns"], 199.0 / 2);
  EXPECT_DOUBLE_EQ(rtt["points"][2]["mean_ns"], 301.0 / 3);
  EXPECT_EQ(rtt["points"][2]["samples"], 10);
}

TEST(DeriveCurves, AppliesLopFormulasToTheRttPerPeer) {
  json list = kSendInline;
  list["list"] = true;
  const std::vector<json> curves = {
      Curve("round_1n_send_inline", "round", {100, 200, 300}, kSendInline),
      Curve("round_1n_send_inline_list", "round", {80, 120, 150}, list),
      Curve("os_send_single_inline", "overhead", {10, 12, 14}),
      Curve("os_send_list_inline", "overhead", {9, 8, 7}),
      // Another op without overhead curves: its rtt, no latency.
      Curve("round_1n_write_normal", "round", {50},
            {{"pattern", "1:n"}, {"op", "write"}, {"inline", false}}),
  };
  const auto derived = DeriveCurves(curves);
  ASSERT_EQ(derived.size(), 5u);
  EXPECT_EQ(derived[1]["name"], "rtt_1n_send_inline_list");
  EXPECT_EQ(derived[2]["name"], "rtt_1n_write_normal");
  const json& l = derived[3];
  const json& ll = derived[4];
  EXPECT_EQ(l["name"], "L_1n_send_inline");
  EXPECT_EQ(l["kind"], "latency");
  EXPECT_EQ(ll["name"], "Llist_1n_send_inline");
  EXPECT_EQ(ll["list"], true);
  ASSERT_EQ(l["points"].size(), 3u);
  // L(p) = t_rtt(p)/2 - (o_s(p) + o_s(1)), t_rtt = round/p = 100
  EXPECT_DOUBLE_EQ(l["points"][0]["median_ns"], 50 - (10 + 10));
  EXPECT_DOUBLE_EQ(l["points"][1]["median_ns"], 50 - (12 + 10));
  EXPECT_DOUBLE_EQ(l["points"][2]["median_ns"], 50 - (14 + 10));
  // L_list(p) = t_rtt_list(p)/2 - (p * o_s_list(p) + o_s(1)), from the
  // list-posted round: t_rtt_list = 80, 60, 50
  EXPECT_DOUBLE_EQ(ll["points"][0]["median_ns"], 40 - (1 * 9 + 10));
  EXPECT_DOUBLE_EQ(ll["points"][1]["median_ns"], 30 - (2 * 8 + 10));
  EXPECT_DOUBLE_EQ(ll["points"][2]["median_ns"], 25 - (3 * 7 + 10));
  // Per statistic: min uses the minima throughout.
  EXPECT_DOUBLE_EQ(l["points"][1]["min_ns"], 199.0 / 2 / 2 - (11 + 9));
  EXPECT_DOUBLE_EQ(l["points"][1]["mean_ns"], 201.0 / 2 / 2 - (13 + 11));
}

TEST(DeriveCurves, NoListRoundNoLatencyList) {
  const std::vector<json> curves = {
      Curve("round_1n_send_inline", "round", {100}, kSendInline),
      Curve("os_send_single_inline", "overhead", {10}),
      Curve("os_send_list_inline", "overhead", {9}),
  };
  const auto derived = DeriveCurves(curves);
  ASSERT_EQ(derived.size(), 2u);
  EXPECT_EQ(derived[1]["name"], "L_1n_send_inline");
}

TEST(DeriveCurves, NeedsOverheadAtPOne) {
  const std::vector<json> curves = {
      Curve("round_n1_send_normal", "round", {100},
            {{"pattern", "n:1"}, {"op", "send"}, {"inline", false}}),
      Curve("os_send_list", "overhead", {9}),
  };
  const auto derived = DeriveCurves(curves);
  ASSERT_EQ(derived.size(), 1u);
  EXPECT_EQ(derived[0]["kind"], "rtt");
}

TEST(Definitions, OneEntryPerKind) {
  const json d = Definitions();
  EXPECT_EQ(d.size(), 4u);
  for (const char* kind : {"round", "rtt", "overhead", "latency"}) {
    EXPECT_TRUE(d.contains(kind)) << kind;
  }
}

}  // namespace
}  // namespace verbsbench::lop
