// The lop contract from both ends: a run as verbsbench writes it
// (verbsbench::ToJson, with its derived t_rtt and L curves) read by
// lopfit's parser and analysis. If either side drifts — a curve name, a
// kind, a key, a formula — this fails.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "models/lop/contract.h"
#include "models/lop/lop_analysis.h"
#include "models/lop/lop_data.h"
#include "verbsbench/mode.h"
#include "verbsbench/result.h"

namespace verbsemu::fit {
namespace {

namespace vb = verbsbench;

vb::LopCurve Measured(const std::string& name, vb::lop::Kind kind, bool list,
                      double (*per_p)(int)) {
  vb::LopCurve c;
  c.name = name;
  c.kind = kind;
  c.op = "send";
  c.is_inline = true;
  c.list = list;
  if (kind == vb::lop::Kind::kRound) c.pattern = vb::lop::kPattern1n;
  if (kind == vb::lop::Kind::kOverhead) c.side = vb::lop::kSideSend;
  for (int p = 1; p <= 8; ++p) {
    vb::Recorder rec(100, 0);
    for (int i = 0; i < 50; ++i) rec.Add(per_p(p) * (1 + 0.001 * (i % 5)));
    c.points.push_back({p, std::move(rec)});
  }
  return c;
}

// A verbsbench lop run: rounds growing with p, send overheads.
nlohmann::json VerbsbenchRun() {
  vb::Result r;
  r.options.mode = vb::Mode::kLop;
  r.lop = {
      Measured(vb::lop::RoundCurveName("1:n", "send", true, false),
               vb::lop::Kind::kRound, false,
               [](int p) { return 30000.0 + 9000.0 * p; }),
      Measured(vb::lop::RoundCurveName("1:n", "send", true, true),
               vb::lop::Kind::kRound, true,
               [](int p) { return 28000.0 + 7000.0 * p; }),
      Measured(vb::lop::SendOverheadCurveName("send", false, true),
               vb::lop::Kind::kOverhead, false,
               [](int p) { return 1500.0 + 400.0 / p; }),
      Measured(vb::lop::SendOverheadCurveName("send", true, true),
               vb::lop::Kind::kOverhead, true,
               [](int p) { return 900.0 + 600.0 / p; }),
  };
  return vb::ToJson(r);
}

TEST(LopSchema, LopfitReadsWhatVerbsbenchWrites) {
  const nlohmann::json doc = VerbsbenchRun();
  const LopRun run = ParseLopText(doc.dump(), "verbsbench");
  std::map<std::string, CurveKind> kinds;
  for (const LopCurve& c : run.curves) kinds[c.name] = c.kind;
  EXPECT_EQ(kinds.at("round_1n_send_inline"), CurveKind::kRound);
  EXPECT_EQ(kinds.at("round_1n_send_inline_list"), CurveKind::kRound);
  EXPECT_EQ(kinds.at("rtt_1n_send_inline"), CurveKind::kRtt);
  EXPECT_EQ(kinds.at("rtt_1n_send_inline_list"), CurveKind::kRtt);
  EXPECT_EQ(kinds.at("os_send_single_inline"), CurveKind::kOverhead);
  EXPECT_EQ(kinds.at("L_1n_send_inline"), CurveKind::kLatency);
  EXPECT_EQ(kinds.at("Llist_1n_send_inline"), CurveKind::kLatency);
  for (const LopCurve& c : run.curves) {
    EXPECT_EQ(c.points.size(), 8u) << c.name;
    if (c.name.ends_with("_list")) {
      EXPECT_TRUE(c.list) << c.name;
    }
  }
}

// verbsbench derives L(p) and L_list(p) itself; lopfit derives them again
// from the rtt and overhead curves. Both must be the same numbers.
TEST(LopSchema, BothEndsDeriveTheSameLatencies) {
  const LopRun run = ParseLopText(VerbsbenchRun().dump(), "verbsbench");
  const LopAnalysis a = Analyze(run);  // the median
  std::map<std::string, const LopCurve*> by_name;
  for (const LopCurve& c : run.curves) by_name[c.name] = &c;
  ASSERT_EQ(a.derived.size(), 2u);
  for (const Derived& d : a.derived) {
    const LopCurve& l =
        *by_name.at(d.list ? "Llist_1n_send_inline" : "L_1n_send_inline");
    ASSERT_EQ(l.points.size(), d.points.size());
    for (std::size_t i = 0; i < d.points.size(); ++i) {
      EXPECT_NEAR(d.points[i].l, *l.points[i].median_ns,
                  1e-9 * std::abs(d.points[i].l))
          << l.name << " p=" << d.points[i].p;
    }
  }
  // t_rtt is the round per peer.
  const LopCurve& round = *by_name.at("round_1n_send_inline");
  const LopCurve& rtt = *by_name.at("rtt_1n_send_inline");
  for (std::size_t i = 0; i < rtt.points.size(); ++i) {
    EXPECT_DOUBLE_EQ(*rtt.points[i].median_ns,
                     *round.points[i].median_ns / round.points[i].p);
  }
}

}  // namespace
}  // namespace verbsemu::fit
