// Fits every curve of a verbsbench lop run (t_rtt for rtt curves, t_ov for
// overhead curves), derives the LoP latency
//   L(p)      = RTT2(p) - (o_s(p) + o_s(1))        (single posts)
//   L_list(p) = RTT2(p) - (p*o_s(p) + o_s(1))      (one posted list)
// and the predicted times t_1:n = o(n) + n*L(n), t^list_1:n = n*o(n) +
// n*L(n), both from the measured statistic and from the fitted functions,
// and renders the result as text, JSON and gnuplot data files.
#ifndef VERBSEMU_TOOLS_FIT_LOP_ANALYSIS_H_
#define VERBSEMU_TOOLS_FIT_LOP_ANALYSIS_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "tools/fit/lm.h"
#include "tools/fit/lop_data.h"

namespace verbsemu::fit {

struct CurveFit {
  LopCurve curve;
  std::vector<double> p, y;  // y: the chosen statistic.
  bool fitted = false;
  std::string note;  // Why not fitted, or empty.
  FitResult fit;
  // The fitted function at p; NaN if not fitted.
  double Eval(double p) const;
  const char* ModelName() const;  // "t_rtt", "t_ov" or "" (latency).
};

struct DerivedPoint {
  double p = 0;
  // Measured (chosen statistic); NaN where a curve has no point at p.
  double rtt2 = 0, os_p = 0, os_1 = 0, l = 0, t_pred = 0;
  // From the fitted functions; NaN if a fit is missing.
  double l_fit = 0, t_pred_fit = 0;
};

struct Derived {
  std::string rtt;       // rtt curve name.
  std::string overhead;  // Paired send-overhead curve name.
  bool list = false;     // L_list / t^list_1:n (else L / t_1:n).
  std::string note;      // E.g. how the pairing was made.
  std::vector<DerivedPoint> points;
};

struct LopAnalysis {
  Stat stat = Stat::kMedian;
  std::vector<CurveFit> curves;
  std::vector<Derived> derived;
};

// Throws LopInputError if a curve lacks the chosen statistic. If
// predict_max exceeds an rtt curve's largest p, its derived rows continue to
// p = predict_max from the fitted functions alone (extrapolation).
LopAnalysis Analyze(const LopRun& run, Stat stat, int predict_max = 0);

void PrintText(std::ostream& out, const LopAnalysis& a);
nlohmann::json ToJson(const LopAnalysis& a);
// Writes <curve>.dat, <curve>.fit.dat, derived_L_<rtt>.dat /
// derived_Llist_<rtt>.dat and an
// index curves.tsv (type, name, data file, fit file, label) for
// tools/plot/plot.sh. Creates dir. Throws LopInputError on I/O failure.
void WriteGnuplotDir(const std::string& dir, const LopAnalysis& a);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_TOOLS_FIT_LOP_ANALYSIS_H_
