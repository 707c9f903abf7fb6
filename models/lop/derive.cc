#include "models/lop/derive.h"

#include <array>
#include <map>
#include <string>

#include "models/lop/contract.h"
#include "models/lop/formulas.h"

namespace verbsbench::lop {
namespace {

using nlohmann::json;

// The statistics t_rtt scales: every one is exact under a factor.
constexpr std::array<const char*, 4> kScaledStats = {
    key::kMinNs, key::kMedianNs, key::kMeanNs, key::kP99Ns};

const json* PointAt(const json& curve, int p) {
  for (const json& pt : curve[key::kPoints]) {
    if (pt[key::kP] == p) return &pt;
  }
  return nullptr;
}

// A derived curve of `kind` named `name` with the identity of `from`.
json DerivedCurve(const json& from, Kind kind, const std::string& name) {
  json c = {{key::kName, name},
            {key::kKind, KindName(kind)},
            {key::kPattern, from[key::kPattern]},
            {key::kOp, from[key::kOp]},
            {key::kInline, from[key::kInline]},
            {key::kList, from.value(key::kList, false)},
            {key::kPoints, json::array()}};
  if (from.contains(key::kSize)) c[key::kSize] = from[key::kSize];
  return c;
}

// t_rtt(p) = round(p)/p.
json PerPeerCurve(const json& round) {
  const bool list = round.value(key::kList, false);
  json rtt = DerivedCurve(
      round, Kind::kRtt,
      RttCurveName(round[key::kPattern].get<std::string>(),
                   round[key::kOp].get<std::string>(),
                   NameSaysInline(round[key::kName].get<std::string>()), list));
  for (const json& pt : round[key::kPoints]) {
    const int p = pt[key::kP];
    json out = {{key::kP, p}, {key::kSamples, pt[key::kSamples]}};
    for (const char* stat : kScaledStats) {
      if (pt.contains(stat)) out[stat] = PerPeer(pt[stat].get<double>(), p);
    }
    rtt[key::kPoints].push_back(std::move(out));
  }
  return rtt;
}

// L(p) (single posts) or L_list(p) (a list) of the rtt curve `rtt`, with
// the send overheads `os` of the same kind of post and o_s(1) of single
// posts.
json LatencyCurve(const json& rtt, const json& os, const json& os1) {
  const bool list = rtt.value(key::kList, false);
  const bool is_inline = NameSaysInline(rtt[key::kName].get<std::string>());
  json l = DerivedCurve(
      rtt, Kind::kLatency,
      LatencyCurveName(rtt[key::kPattern].get<std::string>(),
                       rtt[key::kOp].get<std::string>(), is_inline, list));
  for (const json& pt : rtt[key::kPoints]) {
    const int p = pt[key::kP];
    const json* o = PointAt(os, p);
    if (!o) continue;
    json out = {{key::kP, p}, {key::kSamples, pt[key::kSamples]}};
    for (const char* stat : kDerivedStats) {
      out[stat] =
          Latency(Rtt2(pt[stat].get<double>()), (*o)[stat].get<double>(),
                  os1[stat].get<double>(), PostMultiplier(list, p));
    }
    l[key::kPoints].push_back(std::move(out));
  }
  return l;
}

}  // namespace

std::vector<json> DeriveCurves(const std::vector<json>& curves) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < curves.size(); ++i)
    index[curves[i].value(key::kName, "")] = i;
  std::vector<json> rtts, latencies;
  for (const json& c : curves) {
    if (c[key::kKind] == KindName(Kind::kRound))
      rtts.push_back(PerPeerCurve(c));
  }
  for (const json& rtt : rtts) {
    const std::string op = rtt[key::kOp];
    const bool is_inline = NameSaysInline(rtt[key::kName].get<std::string>());
    const bool list = rtt.value(key::kList, false);
    const auto single = index.find(SendOverheadCurveName(op, false, is_inline));
    const auto os = index.find(SendOverheadCurveName(op, list, is_inline));
    if (single == index.end() || os == index.end()) continue;
    const json* os1 = PointAt(curves[single->second], 1);
    if (!os1) continue;
    latencies.push_back(LatencyCurve(rtt, curves[os->second], *os1));
  }
  for (json& l : latencies) rtts.push_back(std::move(l));
  return rtts;
}

json Definitions() {
  return {
      {KindName(Kind::kRound),
       "one whole 1:n or n:1 round, ns: p messages out and p replies back "
       "(n:1: measured by the peers); list: the p messages posted as one "
       "list on one UD QP with p address handles"},
      {KindName(Kind::kRtt),
       "t_rtt(p) = round(p)/p, the round trip per peer that LoP §4.7 "
       "measures and fits"},
      {KindName(Kind::kOverhead),
       "time of ibv_post_send/ibv_post_recv per WR: p WRs posted one call per "
       "peer QP (single) or as one list on one QP (list), divided by p"},
      {KindName(Kind::kLatency),
       "L(p) = t_rtt(p)/2 - (o_s(p) + o_s(1)) from single posts; L_list(p) = "
       "t_rtt_list(p)/2 - (p*o_s_list(p) + o_s(1)) from the list-posted "
       "round (LoP §4.4), per statistic"}};
}

}  // namespace verbsbench::lop
