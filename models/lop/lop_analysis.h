// Fits every curve of a verbsbench lop run — t_rtt's family for the
// per-peer "rtt" curves, t_ov's for the overheads (lop_models.h) — and
// derives LoP's latency and 1:n time (LoP §4.4, §4.7)
//   L(p)      = t_rtt(p)/2 - (o_s(p) + o_s(1))            single posts
//   L_list(p) = t_rtt_list(p)/2 - (p*o_s(p) + o_s(1))     one posted list
//   t_1:n = o(n) + n*L(n),  t^list_1:n = n*o(n) + n*L_list(n)
// from the measured statistic and from the chosen fits. The render
// functions are in lop_report.h.
#ifndef VERBSEMU_MODELS_LOP_LOP_ANALYSIS_H_
#define VERBSEMU_MODELS_LOP_LOP_ANALYSIS_H_

#include <string>
#include <vector>

#include "models/lop/lop_data.h"
#include "models/lop/lop_models.h"

namespace verbsemu::fit {

struct CurveFit {
  LopCurve curve;
  std::vector<double> p, y;  // y: the chosen statistic
  FamilyFit family;          // empty: not fitted (see note)
  std::string note;
  bool fitted() const { return family.Chosen() != nullptr; }
  // The chosen fit at p; NaN if not fitted.
  double Eval(double p) const;
  // The family's LogP member at p (t_rtt: g + c/p; t_ov: o); NaN if none.
  double EvalLogP(double p) const;
  const char* ModelName() const;  // "t_rtt", "t_ov" or ""
};

struct DerivedPoint {
  double p = 0;
  // Measured (the chosen statistic); NaN where a curve has no point at p.
  double t_rtt = 0, os_p = 0, os_1 = 0, l = 0, t_pred = 0;
  // From the chosen fits, and from the LogP members; NaN if missing.
  double l_fit = 0, t_pred_fit = 0, t_pred_logp = 0;
  // (t_pred_fit - t_pred) / (p·t_rtt/2): the fit's error on the scale of
  // the 1:n time. t_pred itself is o(n) + n·L(n) = n·t_rtt/2 - (n-1)·o(n)
  // - n·o(1), which crosses zero where o_s is about t_rtt/2 (rxe: the
  // kernel sends inside ibv_post_send), so it cannot be the denominator.
  double fit_error = 0;
};

struct Derived {
  std::string rtt;       // rtt curve name
  std::string overhead;  // paired send-overhead curve name
  bool list = false;     // L_list / t^list_1:n (else L / t_1:n)
  std::string note;
  std::vector<DerivedPoint> points;
  // Largest |fit_error| over the measured points; NaN if none.
  double MaxFitError() const;
};

struct AnalysisOptions {
  Stat stat = Stat::kMedian;
  Weighting weighting = Weighting::kRelative;
  std::string rtt_model;       // "" (AICc chooses) or a family member
  std::string overhead_model;  // likewise
  int predict_max = 0;         // extend the derived rows from the fits
};

struct LopAnalysis {
  AnalysisOptions options;
  std::vector<CurveFit> curves;
  std::vector<Derived> derived;
};

// Throws LopInputError if a curve lacks the chosen statistic or a forced
// model is not a member of its family.
LopAnalysis Analyze(const LopRun& run, const AnalysisOptions& options = {});

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOP_LOP_ANALYSIS_H_
