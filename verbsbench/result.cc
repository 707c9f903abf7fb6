#include "verbsbench/result.h"

#include "models/loggp/contract.h"
#include "models/loggp/derive.h"
#include "models/lop/derive.h"

namespace verbsbench {
namespace {

using nlohmann::json;
namespace key = lop::key;

// What every lat and bw result has: the point and its samples.
json Measured(Op op, size_t size, bool inline_used, uint64_t iterations,
              const Recorder& rec, const Options& o) {
  json j = {{"stats", StatsJson(rec, {.mode_resolution = o.mode_resolution})},
            {"op", Name(op)},
            {"size", size},
            {"inline", inline_used},
            {"iterations", iterations}};
  if (o.raw_limit > 0) j["raw_ns"] = rec.raw();
  return j;
}

json LatJson(const LatPoint& r, const Options& o) {
  json j = Measured(r.op, r.size, r.inline_used, r.iterations, r.recorder, o);
  j["inline_requested"] = r.inline_requested;
  j["metric"] = r.op == Op::kRead ? "rtt" : "rtt/2";
  return j;
}

json BwJson(const BwPoint& r, const Options& o) {
  const double ns = r.elapsed_ns;
  const double ways = r.bidirectional ? 2 : 1;
  const double bytes =
      static_cast<double>(r.iterations) * static_cast<double>(r.size) * ways;
  json j = Measured(r.op, r.size, r.inline_used, r.iterations, r.recorder, o);
  j["bidirectional"] = r.bidirectional;
  j["elapsed_ns"] = ns;
  if (r.bidirectional) j["peer_elapsed_ns"] = r.peer_elapsed_ns;
  j["bw_MiBps"] = bytes / (ns / 1e9) / (1 << 20);
  j["bw_Gbps"] = bytes * 8 / ns;
  j["msg_rate_Mpps"] = static_cast<double>(r.iterations) * ways / (ns / 1e3);
  j["metric"] = "per-message completion interval (batch share)";
  return j;
}

// The statistics of one measured quantity, as lop points and loggp
// entries carry them.
json StatJson(const Recorder& rec, const Options& o) {
  const LogHistogram& h = rec.histogram();
  json j = {
      {key::kMinNs, h.min()},
      {key::kMedianNs, h.Quantile(0.5)},
      {key::kMeanNs, h.mean()},
      {key::kP99Ns, h.Quantile(0.99)},
      {key::kSamples, h.count()},
      {key::kStats, StatsJson(rec, {.mode_resolution = o.mode_resolution})}};
  if (o.raw_limit > 0) j[key::kRawNs] = rec.raw();
  return j;
}

json PointJson(const LopPoint& pt, const Options& o) {
  json j = StatJson(pt.recorder, o);
  j[key::kP] = pt.p;
  return j;
}

json CurveJson(const LopCurve& c, const Options& o) {
  json j = {{key::kName, c.name}, {key::kKind, lop::KindName(c.kind)},
            {key::kOp, c.op},     {key::kInline, c.is_inline},
            {key::kList, c.list}, {key::kPoints, json::array()}};
  if (!c.pattern.empty()) j[key::kPattern] = c.pattern;
  if (!c.side.empty()) j[key::kSide] = c.side;
  if (c.size) j[key::kSize] = *c.size;
  for (const LopPoint& pt : c.points) {
    j[key::kPoints].push_back(PointJson(pt, o));
  }
  return j;
}

json LopJson(const std::vector<LopCurve>& curves, const Options& o) {
  std::vector<json> measured;
  measured.reserve(curves.size());
  for (const LopCurve& c : curves) measured.push_back(CurveJson(c, o));
  std::vector<json> derived = lop::DeriveCurves(measured);
  json out = {{lop::kCurves, json::array()}};
  for (json& c : measured) out[lop::kCurves].push_back(std::move(c));
  for (json& c : derived) out[lop::kCurves].push_back(std::move(c));
  out[lop::kDefinitions] = lop::Definitions();
  return out;
}

json LoggpJson(const std::vector<LoggpPoint>& points, const Options& o) {
  json out = {{loggp::key::kN, o.loggp_n}, {loggp::kPoints, json::array()}};
  for (const LoggpPoint& pt : points) {
    json j = {{loggp::key::kOp, Name(pt.op)},
              {loggp::key::kSize, pt.size},
              {loggp::key::kInline, pt.inline_used},
              {"iterations", pt.iterations},
              {loggp::key::kDelayNs, pt.delay_ns},
              {loggp::key::kPrtt10, StatJson(pt.prtt_1_0, o)},
              {loggp::key::kPrttN0, StatJson(pt.prtt_n_0, o)},
              {loggp::key::kPrttNd, StatJson(pt.prtt_n_d, o)},
              {loggp::key::kOr, StatJson(pt.o_r, o)}};
    j[loggp::key::kDerived] = loggp::DerivePoint(j, o.loggp_n);
    out[loggp::kPoints].push_back(std::move(j));
  }
  out[loggp::kDefinitions] = loggp::Definitions();
  return out;
}

}  // namespace

json Result::ToJson() const {
  json out = {{"tool", "verbsbench"},
              {"mode", Name(options.mode)},
              {"device", device},
              {"timer", timer},
              {"provenance", provenance}};
  if (peer) {
    out["role"] = "peer";
    return out;
  }
  out["params"] = options.ToJson();
  out["ranks"] = ranks;
  switch (options.mode) {
    case Mode::kLat:
      out["results"] = json::array();
      for (const LatPoint& r : lat)
        out["results"].push_back(LatJson(r, options));
      break;
    case Mode::kBw:
      out["results"] = json::array();
      for (const BwPoint& r : bw) out["results"].push_back(BwJson(r, options));
      break;
    case Mode::kLop:
      out[lop::kSection] = LopJson(lop, options);
      break;
    case Mode::kLoggp:
      out[loggp::kSection] = LoggpJson(loggp, options);
      break;
  }
  return out;
}

}  // namespace verbsbench
