#include "verbsbench/lop/derive.h"

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

TEST(DeriveLatencyCurves, AppliesLopFormulas) {
  const std::vector<json> curves = {
      Curve("rtt2_1n_send_inline", "rtt", {100, 200, 300},
            {{"pattern", "1:n"}, {"op", "send"}, {"inline", true}}),
      Curve("os_send_single_inline", "overhead", {10, 12, 14}),
      Curve("os_send_list_inline", "overhead", {9, 8, 7}),
      // Another op without overhead curves: no derived curves for it.
      Curve("rtt2_1n_write_normal", "rtt", {50},
            {{"pattern", "1:n"}, {"op", "write"}, {"inline", false}}),
  };
  const auto derived = DeriveLatencyCurves(curves);
  ASSERT_EQ(derived.size(), 2u);
  const json& l = derived[0];
  const json& ll = derived[1];
  EXPECT_EQ(l["name"], "L_1n_send_inline");
  EXPECT_EQ(l["kind"], "latency");
  EXPECT_EQ(ll["name"], "Llist_1n_send_inline");
  EXPECT_EQ(ll["list"], true);
  ASSERT_EQ(l["points"].size(), 3u);
  // L(p) = RTT(p)/2 - (o_s(p) + o_s(1))
  EXPECT_DOUBLE_EQ(l["points"][0]["median_ns"], 50 - (10 + 10));
  EXPECT_DOUBLE_EQ(l["points"][1]["median_ns"], 100 - (12 + 10));
  EXPECT_DOUBLE_EQ(l["points"][2]["median_ns"], 150 - (14 + 10));
  // L_list(p) = RTT(p)/2 - (p * o_s_list(p) + o_s(1))
  EXPECT_DOUBLE_EQ(ll["points"][0]["median_ns"], 50 - (1 * 9 + 10));
  EXPECT_DOUBLE_EQ(ll["points"][1]["median_ns"], 100 - (2 * 8 + 10));
  EXPECT_DOUBLE_EQ(ll["points"][2]["median_ns"], 150 - (3 * 7 + 10));
  // Per statistic: min uses the minima throughout.
  EXPECT_DOUBLE_EQ(l["points"][1]["min_ns"], 199.0 / 2 - (11 + 9));
  EXPECT_DOUBLE_EQ(l["points"][1]["mean_ns"], 201.0 / 2 - (13 + 11));
}

TEST(DeriveLatencyCurves, NeedsOverheadAtPOne) {
  const std::vector<json> curves = {
      Curve("rtt2_n1_send_normal", "rtt", {100},
            {{"pattern", "n:1"}, {"op", "send"}, {"inline", false}}),
      Curve("os_send_list", "overhead", {9}),
  };
  EXPECT_TRUE(DeriveLatencyCurves(curves).empty());
}

TEST(Definitions, OneEntryPerKind) {
  const json d = Definitions();
  EXPECT_EQ(d.size(), 3u);
  for (const char* kind : {"rtt", "overhead", "latency"}) {
    EXPECT_TRUE(d.contains(kind)) << kind;
  }
}

}  // namespace
}  // namespace verbsbench::lop
