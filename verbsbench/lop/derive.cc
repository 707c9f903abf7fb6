#include "verbsbench/lop/derive.h"

#include <map>
#include <string>

#include "verbsbench/lop/contract.h"
#include "verbsbench/lop/formulas.h"

namespace verbsbench::lop {
namespace {

using nlohmann::json;

const json* PointAt(const json& curve, int p) {
  for (const json& pt : curve[key::kPoints]) {
    if (pt[key::kP] == p) return &pt;
  }
  return nullptr;
}

// An empty derived curve (L or L_list) for the rtt curve `rtt`.
json LatencyCurve(const json& rtt, bool is_inline, bool list) {
  const std::string op = rtt[key::kOp];
  return {{key::kName, LatencyCurveName(rtt[key::kPattern].get<std::string>(),
                                        op, is_inline, list)},
          {key::kKind, KindName(Kind::kLatency)},
          {key::kPattern, rtt[key::kPattern]},
          {key::kOp, op},
          {key::kInline, rtt[key::kInline]},
          {key::kList, list},
          {key::kPoints, json::array()}};
}

struct Overheads {
  const json* single;
  const json* list;
  const json* os1;  // single, p = 1
};

// Appends to l and ll the derived points of every rtt point that has both
// overheads.
void DerivePoints(const json& rtt, const Overheads& os, json& l, json& ll) {
  for (const json& pt : rtt[key::kPoints]) {
    const int p = pt[key::kP];
    const json* s = PointAt(*os.single, p);
    const json* li = PointAt(*os.list, p);
    if (!s || !li) continue;
    json a = {{key::kP, p}, {key::kSamples, pt[key::kSamples]}}, b = a;
    for (const char* stat : kDerivedStats) {
      const double rtt2 = Rtt2(pt[stat].get<double>());
      const double o1 = (*os.os1)[stat];
      a[stat] =
          Latency(rtt2, (*s)[stat].get<double>(), o1, PostMultiplier(false, p));
      b[stat] =
          Latency(rtt2, (*li)[stat].get<double>(), o1, PostMultiplier(true, p));
    }
    l[key::kPoints].push_back(a);
    ll[key::kPoints].push_back(b);
  }
}

}  // namespace

std::vector<json> DeriveLatencyCurves(const std::vector<json>& curves) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < curves.size(); ++i)
    index[curves[i].value(key::kName, "")] = i;
  std::vector<json> derived;
  for (const json& c : curves) {
    if (c[key::kKind] != KindName(Kind::kRtt)) continue;
    const std::string op = c[key::kOp];
    const bool is_inline = NameSaysInline(c[key::kName].get<std::string>());
    const auto single = index.find(SendOverheadCurveName(op, false, is_inline));
    const auto list = index.find(SendOverheadCurveName(op, true, is_inline));
    if (single == index.end() || list == index.end()) continue;
    Overheads os{&curves[single->second], &curves[list->second], nullptr};
    os.os1 = PointAt(*os.single, 1);
    if (!os.os1) continue;
    json l = LatencyCurve(c, is_inline, false);
    json ll = LatencyCurve(c, is_inline, true);
    DerivePoints(c, os, l, ll);
    derived.push_back(l);
    derived.push_back(ll);
  }
  return derived;
}

json Definitions() {
  return {
      {KindName(Kind::kRtt),
       "full round trip of one 1:n or n:1 round, ns (n:1: measured by the "
       "peers)"},
      {KindName(Kind::kOverhead),
       "time of ibv_post_send/ibv_post_recv per WR: p WRs posted one call per "
       "peer QP (single) or as one list on one QP (list), divided by p"},
      {KindName(Kind::kLatency),
       "L(p) = RTT2(p) - (o_s(p) + o_s(1)); L_list(p) = RTT2(p) - "
       "(p*o_s_list(p) + o_s(1)) (LoP §4.4), per statistic, with RTT2(p) = "
       "rtt(p)/2 as in LoP §4.7"}};
}

}  // namespace verbsbench::lop
