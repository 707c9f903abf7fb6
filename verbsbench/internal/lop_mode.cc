// lop: the LoP curves over p — whole 1:n and n:1 rounds (ToJson derives
// t_rtt per peer from them), for send also the 1:n round posted as one list
// (on UD: L_list needs a round trip of its own), send overheads (single
// posts and lists) per op and inline mode, receive overheads.
#include <map>
#include <stdexcept>
#include <string>

#include "models/lop/contract.h"
#include "models/lop/derive.h"
#include "verbsbench/internal/modes.h"

namespace verbsbench::internal {
namespace {

// Curves by name, in order of first use (stable output).
class Curves {
 public:
  LopCurve& Get(LopCurve meta) {
    auto it = index_.find(meta.name);
    if (it != index_.end()) return curves_[it->second];
    index_[meta.name] = curves_.size();
    curves_.push_back(std::move(meta));
    return curves_.back();
  }
  std::vector<LopCurve> Take() { return std::move(curves_); }

 private:
  std::vector<LopCurve> curves_;
  std::map<std::string, size_t> index_;
};

LopCurve Round(const char* pattern, const Message& m, bool used,
               bool list = false) {
  LopCurve c;
  c.name = lop::RoundCurveName(pattern, Name(m.op), m.inl, list);
  c.kind = lop::Kind::kRound;
  c.pattern = pattern;
  c.op = Name(m.op);
  c.is_inline = used;
  c.list = list;
  c.size = m.size;
  return c;
}

LopCurve SendOverhead(const Message& m, bool used, bool list) {
  LopCurve c;
  c.name = lop::SendOverheadCurveName(Name(m.op), list, m.inl);
  c.kind = lop::Kind::kOverhead;
  c.side = lop::kSideSend;
  c.op = Name(m.op);
  c.is_inline = used;
  c.list = list;
  c.size = m.size;
  return c;
}

LopCurve RecvOverhead(bool list) {
  LopCurve c;
  c.name = lop::RecvOverheadCurveName(list);
  c.kind = lop::Kind::kOverhead;
  c.side = lop::kSideRecv;
  c.op = lop::kOpRecv;
  c.list = list;
  return c;
}

void MeasureOp(Measurements& meas, const Options& o, int p, const Message& m,
               Curves& curves) {
  const bool used = meas.Inline(m);
  const uint64_t iters = IterationsFor(
      o, [&](uint64_t n) { return meas.RoundTrip1n(p, m, n, 0, 1.0); });
  curves.Get(Round(lop::kPattern1n, m, used))
      .points.push_back({p, meas.RoundTrip1n(p, m, iters, o.warmup, 1.0)});
  if (m.op == Op::kSend) {
    curves.Get(Round(lop::kPattern1n, m, meas.InlineUd(m), /*list=*/true))
        .points.push_back({p, meas.RoundTrip1nList(p, m, iters, o.warmup)});
  }
  curves.Get(Round(lop::kPatternN1, m, used))
      .points.push_back({p, meas.RoundTripN1(p, m, iters, o.warmup)});
  for (bool list : {false, true}) {
    curves.Get(SendOverhead(m, used, list))
        .points.push_back({p, meas.SendOverhead(p, m, list, iters, o.warmup)});
  }
}

namespace key = lop::key;

nlohmann::json PointJson(const LopPoint& pt, const Options& o) {
  nlohmann::json j = StatJson(pt.recorder, o);
  j[key::kP] = pt.p;
  return j;
}

nlohmann::json CurveJson(const LopCurve& c, const Options& o) {
  nlohmann::json j = {
      {key::kName, c.name}, {key::kKind, lop::KindName(c.kind)},
      {key::kOp, c.op},     {key::kInline, c.is_inline},
      {key::kList, c.list}, {key::kPoints, nlohmann::json::array()}};
  if (!c.pattern.empty()) j[key::kPattern] = c.pattern;
  if (!c.side.empty()) j[key::kSide] = c.side;
  if (c.size) j[key::kSize] = *c.size;
  for (const LopPoint& pt : c.points) {
    j[key::kPoints].push_back(PointJson(pt, o));
  }
  return j;
}

}  // namespace

void CheckLop(const Options& o) {
  for (Op op : o.ops) {
    if (op == Op::kRead) {
      throw std::invalid_argument("lop measures send and write only");
    }
  }
  if (o.sizes.size() != 1) {
    throw std::invalid_argument("lop takes one message size");
  }
}

// The measured curves, then the latency curves lop::DeriveCurves derives
// from them, and the definitions.
void LopJson(const Result& r, nlohmann::json& run) {
  std::vector<nlohmann::json> measured;
  measured.reserve(r.lop.size());
  for (const LopCurve& c : r.lop) measured.push_back(CurveJson(c, r.options));
  std::vector<nlohmann::json> derived = lop::DeriveCurves(measured);
  nlohmann::json out = {{lop::kCurves, nlohmann::json::array()}};
  for (nlohmann::json& c : measured) out[lop::kCurves].push_back(std::move(c));
  for (nlohmann::json& c : derived) out[lop::kCurves].push_back(std::move(c));
  out[lop::kDefinitions] = lop::Definitions();
  run[lop::kSection] = std::move(out);
}

std::vector<LopCurve> RunLop(Measurements& meas, const Options& o,
                             std::ostream& progress) {
  Curves curves;
  for (int p : o.p_values) {
    for (Op op : o.ops) {
      for (bool inl : o.inline_modes) {
        progress << "lop p=" << p << " " << Name(op) << " "
                 << (inl ? "inline" : "normal") << "\n";
        MeasureOp(meas, o, p, Message{op, o.sizes.at(0), inl}, curves);
      }
    }
    for (bool list : {false, true}) {
      curves.Get(RecvOverhead(list))
          .points.push_back({p, meas.RecvOverhead(p, list, o.iters, o.warmup)});
    }
  }
  return curves.Take();
}

}  // namespace verbsbench::internal
