#include "models/lop/lop_analysis.h"

#include <cmath>

#include "models/lop/contract.h"
#include "models/lop/formulas.h"

namespace verbsemu::fit {
namespace {

namespace lop = verbsbench::lop;

// Measured statistic at p, or NaN.
double MeasuredAt(const CurveFit& c, double p) {
  for (std::size_t i = 0; i < c.p.size(); ++i) {
    if (c.p[i] == p) return c.y[i];
  }
  return kNaN;
}

bool IsSendOverhead(const LopCurve& c) {
  if (c.kind != CurveKind::kOverhead) return false;
  if (!c.side.empty()) return c.side == lop::kSideSend;
  return c.name.rfind(lop::kSendOverheadPrefix, 0) == 0;
}

// Best send-overhead curve for an rtt curve with the same posting mode: an
// explicit op/inline mismatch excludes a candidate, a match scores.
const CurveFit* PairOverhead(const LopAnalysis& a, const LopCurve& rtt,
                             bool list) {
  const CurveFit* best = nullptr;
  int best_score = -1;
  for (const CurveFit& c : a.curves) {
    if (!IsSendOverhead(c.curve) || c.curve.list != list) continue;
    int score = 0;
    if (!c.curve.op.empty() && !rtt.op.empty()) {
      if (c.curve.op != rtt.op) continue;
      score += 2;
    }
    if (c.curve.is_inline && rtt.is_inline) {
      if (*c.curve.is_inline != *rtt.is_inline) continue;
      score += 1;
    }
    if (score > best_score) {
      best = &c;
      best_score = score;
    }
  }
  return best;
}

// The curves one derivation reads: the rtt curve, the send overheads of its
// kind of post, and those of single posts (o_s(1), as verbsbench derives).
struct Inputs {
  const CurveFit& rtt;
  const CurveFit& os;
  const CurveFit& single;
};

// The same formulas on functions of p (the fits, or the LogP members).
template <class Rtt, class Os>
double Predicted(Rtt rtt, Os os, double os1, double p, bool list,
                 double* l_out) {
  const double mult = lop::PostMultiplier(list, p);
  const double l = lop::Latency(lop::Rtt2(rtt(p)), os(p), os1, mult);
  if (l_out) *l_out = l;
  return lop::PredictedTime(os(p), l, p, mult);
}

DerivedPoint Point(const Inputs& in, double p, bool list, double os1) {
  DerivedPoint pt;
  pt.p = p;
  pt.t_rtt = MeasuredAt(in.rtt, p);
  pt.os_p = MeasuredAt(in.os, p);
  pt.os_1 = os1;
  const double mult = lop::PostMultiplier(list, p);
  pt.l = lop::Latency(lop::Rtt2(pt.t_rtt), pt.os_p, pt.os_1, mult);
  pt.t_pred = lop::PredictedTime(pt.os_p, pt.l, p, mult);
  pt.t_pred_fit = Predicted([&](double x) { return in.rtt.Eval(x); },
                            [&](double x) { return in.os.Eval(x); },
                            in.single.Eval(1), p, list, &pt.l_fit);
  pt.t_pred_logp = Predicted([&](double x) { return in.rtt.EvalLogP(x); },
                             [&](double x) { return in.os.EvalLogP(x); },
                             in.single.EvalLogP(1), p, list, nullptr);
  pt.fit_error = (pt.t_pred_fit - pt.t_pred) / (p * pt.t_rtt / 2);
  return pt;
}

Derived Derive(const Inputs& in, int predict_max) {
  Derived d;
  d.rtt = in.rtt.curve.name;
  d.overhead = in.os.curve.name;
  d.list = in.rtt.curve.list;
  double os1 = MeasuredAt(in.single, 1);
  if (std::isnan(os1) && std::isfinite(in.single.Eval(1))) {
    os1 = in.single.Eval(1);
    d.note = "o_s(1) not measured; the measured columns use the fitted o_s(1)";
  }
  for (double p : in.rtt.p) d.points.push_back(Point(in, p, d.list, os1));
  for (double p = in.rtt.p.back() + 1; p <= predict_max; ++p) {
    d.points.push_back(Point(in, p, d.list, os1));  // fits only
  }
  return d;
}

CurveFit FitCurve(const LopCurve& curve, const AnalysisOptions& o) {
  CurveFit cf;
  cf.curve = curve;
  for (std::size_t i = 0; i < curve.points.size(); ++i) {
    cf.p.push_back(curve.points[i].p);
    cf.y.push_back(curve.Value(i, o.stat));
  }
  const bool rtt = curve.kind == CurveKind::kRtt;
  if (!rtt && curve.kind != CurveKind::kOverhead) {
    cf.note = curve.kind == CurveKind::kRound
                  ? "whole round, not fitted (its rtt curve is)"
                  : "derived curve, not fitted";
    return cf;
  }
  const auto& family = rtt ? RttFamily() : OverheadFamily();
  const std::string& force = rtt ? o.rtt_model : o.overhead_model;
  cf.family = FitFamily(family, cf.p, cf.y, o.weighting, force);
  if (!cf.fitted()) {
    cf.note = force.empty() ? "not fitted: " + std::to_string(cf.p.size()) +
                                  " points leave no degree of freedom"
                            : "not fitted: too few points for model " + force;
  }
  return cf;
}

void CheckForced(const std::string& name, const std::vector<ModelSpec>& fam,
                 const char* what) {
  if (name.empty()) return;
  std::string known;
  for (const ModelSpec& s : fam) {
    if (s.name == name) return;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw LopInputError(std::string(what) + " model '" + name +
                      "' is not one of " + known);
}

}  // namespace

double CurveFit::Eval(double p) const {
  const ModelFit* m = family.Chosen();
  return m ? m->Eval(p) : kNaN;
}

double CurveFit::EvalLogP(double p) const {
  const ModelFit* m = family.LogP();
  return m ? m->Eval(p) : kNaN;
}

const char* CurveFit::ModelName() const {
  switch (curve.kind) {
    case CurveKind::kRtt:
      return "t_rtt";
    case CurveKind::kOverhead:
      return "t_ov";
    default:
      return "";
  }
}

double Derived::MaxFitError() const {
  double worst = kNaN;
  for (const DerivedPoint& pt : points) {
    if (!std::isfinite(pt.fit_error)) continue;
    if (!(std::abs(pt.fit_error) <= worst)) worst = std::abs(pt.fit_error);
  }
  return worst;
}

LopAnalysis Analyze(const LopRun& run, const AnalysisOptions& options) {
  CheckForced(options.rtt_model, RttFamily(), "t_rtt");
  CheckForced(options.overhead_model, OverheadFamily(), "t_ov");
  LopAnalysis a;
  a.options = options;
  for (const LopCurve& curve : run.curves) {
    a.curves.push_back(FitCurve(curve, options));
  }
  for (const CurveFit& c : a.curves) {
    if (c.curve.kind != CurveKind::kRtt) continue;
    const CurveFit* os = PairOverhead(a, c.curve, c.curve.list);
    const CurveFit* single = PairOverhead(a, c.curve, false);
    if (os == nullptr || single == nullptr) continue;
    a.derived.push_back(Derive({c, *os, *single}, options.predict_max));
  }
  return a;
}

}  // namespace verbsemu::fit
