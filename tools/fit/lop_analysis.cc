#include "tools/fit/lop_analysis.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>

#include "tools/fit/lop_models.h"
#include "verbsbench/lop/contract.h"
#include "verbsbench/lop/formulas.h"

namespace verbsemu::fit {
namespace {

namespace lop = verbsbench::lop;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

// Best send-overhead curve for an rtt curve with the given posting mode:
// an explicit op/inline mismatch excludes a candidate, a match scores.
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

// The fitted columns of a derived point: the same formulas on the fitted
// functions.
void FillFitted(const CurveFit& rtt, const CurveFit& os, double p, double mult,
                double os1_fit, DerivedPoint& pt) {
  const double os_p_fit = os.Eval(p);
  pt.l_fit = lop::Latency(lop::Rtt2(rtt.Eval(p)), os_p_fit, os1_fit, mult);
  pt.t_pred_fit = lop::PredictedTime(os_p_fit, pt.l_fit, p, mult);
}

Derived Derive(const CurveFit& rtt, const CurveFit& os, bool list,
               int predict_max) {
  Derived d;
  d.rtt = rtt.curve.name;
  d.overhead = os.curve.name;
  d.list = list;
  const double os1_fit = os.Eval(1);
  double os1 = MeasuredAt(os, 1);
  if (std::isnan(os1) && std::isfinite(os1_fit)) {
    // No p = 1 overhead point: the measured L(p) uses the fitted o_s(1).
    os1 = os1_fit;
    d.note = "o_s(1) not measured; the measured columns use the fitted o_s(1)";
  }
  for (std::size_t i = 0; i < rtt.p.size(); ++i) {
    DerivedPoint pt;
    const double p = rtt.p[i];
    pt.p = p;
    pt.rtt2 = lop::Rtt2(rtt.y[i]);
    pt.os_p = MeasuredAt(os, p);
    pt.os_1 = os1;
    const double mult = lop::PostMultiplier(list, p);
    pt.l = lop::Latency(pt.rtt2, pt.os_p, pt.os_1, mult);
    pt.t_pred = lop::PredictedTime(pt.os_p, pt.l, p, mult);
    FillFitted(rtt, os, p, mult, os1_fit, pt);
    d.points.push_back(pt);
  }
  // Extrapolation from the fits only.
  for (double p = rtt.p.back() + 1; p <= predict_max; ++p) {
    DerivedPoint pt;
    pt.p = p;
    pt.rtt2 = pt.os_p = pt.l = pt.t_pred = kNaN;
    pt.os_1 = os1;
    FillFitted(rtt, os, p, lop::PostMultiplier(list, p), os1_fit, pt);
    d.points.push_back(pt);
  }
  return d;
}

nlohmann::json Num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

std::string Fmt(double v, int width, int prec) {
  if (!std::isfinite(v)) return std::string(width - 1, ' ') + "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%*.*f", width, prec, v);
  return buf;
}

std::string Sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Describe(const LopCurve& c) {
  std::string s = CurveKindName(c.kind);
  if (!c.pattern.empty()) s += " " + c.pattern;
  if (!c.op.empty()) s += " op=" + c.op;
  if (!c.side.empty()) s += " side=" + c.side;
  if (c.is_inline) s += *c.is_inline ? " inline" : " not-inline";
  s += c.list ? " list" : " single";
  return s;
}

// File-name-safe version of a curve name.
std::string SafeName(const std::string& name) {
  std::string s;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
                    ch == '.';
    s += ok ? ch : '_';
  }
  return s;
}

std::string GnuNum(double v) {
  if (!std::isfinite(v)) return "NaN";
  return Sci(v);
}

std::string GnuOpt(const std::optional<double>& v) {
  return v ? GnuNum(*v) : "NaN";
}

void CheckStream(const std::ofstream& out, const std::string& path) {
  if (!out) throw LopInputError("cannot write '" + path + "'");
}

}  // namespace

double CurveFit::Eval(double p) const {
  if (!fitted) return kNaN;
  if (curve.kind == CurveKind::kRtt) return RttModel(p, fit.params);
  if (curve.kind == CurveKind::kOverhead) return OverheadModel(p, fit.params);
  return kNaN;
}

const char* CurveFit::ModelName() const {
  switch (curve.kind) {
    case CurveKind::kRtt:
      return "t_rtt";
    case CurveKind::kOverhead:
      return "t_ov";
    case CurveKind::kLatency:
      return "";
  }
  return "";
}

LopAnalysis Analyze(const LopRun& run, Stat stat, int predict_max) {
  LopAnalysis a;
  a.stat = stat;
  for (const LopCurve& curve : run.curves) {
    CurveFit cf;
    cf.curve = curve;
    for (std::size_t i = 0; i < curve.points.size(); ++i) {
      cf.p.push_back(curve.points[i].p);
      cf.y.push_back(curve.Value(i, stat));
    }
    if (curve.kind == CurveKind::kLatency) {
      cf.note = "derived curve, not fitted";
    } else {
      const bool rtt = curve.kind == CurveKind::kRtt;
      const std::size_t need = rtt ? kRttParams : kOverheadParams;
      if (cf.p.size() < need) {
        cf.note = "not fitted: " + std::to_string(cf.p.size()) +
                  " points, the model has " + std::to_string(need) +
                  " parameters";
      } else {
        cf.fit = rtt ? FitRtt(cf.p, cf.y) : FitOverhead(cf.p, cf.y);
        cf.fitted = cf.fit.params.size() == need && std::isfinite(cf.fit.ssr);
        if (!cf.fitted) cf.note = "not fitted: no finite solution";
      }
    }
    a.curves.push_back(std::move(cf));
  }
  bool have_list_rtt = false;
  for (const CurveFit& c : a.curves) {
    if (c.curve.kind == CurveKind::kRtt && c.curve.list) have_list_rtt = true;
  }
  for (const CurveFit& c : a.curves) {
    if (c.curve.kind != CurveKind::kRtt) continue;
    // An rtt curve measured with single posts gives L, one measured with a
    // posted list gives L_list. If the run has no list rtt curves, L_list is
    // derived from the single-post rtt curves (as the paper's formulas do).
    std::vector<bool> modes = {c.curve.list};
    if (!c.curve.list && !have_list_rtt) modes.push_back(true);
    for (bool list : modes) {
      const CurveFit* os = PairOverhead(a, c.curve, list);
      if (os == nullptr) continue;
      Derived d = Derive(c, *os, list, predict_max);
      if (list && !c.curve.list) {
        if (!d.note.empty()) d.note += "; ";
        d.note +=
            "RTT2 measured with single posts (the run has no list rtt curve)";
      }
      a.derived.push_back(std::move(d));
    }
  }
  return a;
}

void PrintText(std::ostream& out, const LopAnalysis& a) {
  out << "statistic: " << StatName(a.stat) << " (all times in ns)\n";
  out << "models: t_rtt(p) = l1/(l2+p) + l3 + l4*(1-exp(l5*(p-l6)))\n"
      << "        t_ov(p)  = l1 + l2/(l3+p)\n";
  for (const CurveFit& c : a.curves) {
    out << "\ncurve " << c.curve.name << "  [" << Describe(c.curve) << "]  "
        << c.p.size() << " points\n";
    if (c.fitted) {
      out << "  " << c.ModelName() << ":";
      for (std::size_t j = 0; j < c.fit.params.size(); ++j) {
        out << "  l" << (j + 1) << "=" << Sci(c.fit.params[j]);
      }
      out << "\n  R^2=" << Sci(c.fit.r2)
          << "  rms=" << Sci(std::sqrt(c.fit.ssr / c.p.size()))
          << "  iterations=" << c.fit.iterations
          << "  stop=" << StopReasonName(c.fit.reason) << "\n";
    } else {
      out << "  " << c.note << "\n";
    }
    out << "       p    measured         fit    residual\n";
    for (std::size_t i = 0; i < c.p.size(); ++i) {
      const double f = c.Eval(c.p[i]);
      out << Fmt(c.p[i], 8, 0) << Fmt(c.y[i], 12, 1) << Fmt(f, 12, 1)
          << Fmt(c.y[i] - f, 12, 1) << "\n";
    }
  }
  for (const Derived& d : a.derived) {
    const char* l = d.list ? "L_list" : "L";
    const char* t = d.list ? "t^list_1:n" : "t_1:n";
    out << "\n"
        << l << "(p) from " << d.rtt << " and " << d.overhead << ": " << l
        << " = RTT2(p) - (" << (d.list ? "p*" : "") << "o_s(p) + o_s(1)), " << t
        << " = " << (d.list ? "n*" : "") << "o(n) + n*" << l << "(n)\n";
    if (!d.note.empty()) out << "  note: " << d.note << "\n";
    out << "       p     RTT2(p)      o_s(p)      o_s(1)"
        << (d.list ? "   L_list(p)  L_list fit" : "        L(p)    L(p) fit")
        << "     t_pred  t_pred fit\n";
    for (const DerivedPoint& pt : d.points) {
      out << Fmt(pt.p, 8, 0) << Fmt(pt.rtt2, 12, 1) << Fmt(pt.os_p, 12, 1)
          << Fmt(pt.os_1, 12, 1) << Fmt(pt.l, 12, 1) << Fmt(pt.l_fit, 12, 1)
          << Fmt(pt.t_pred, 11, 1) << Fmt(pt.t_pred_fit, 12, 1) << "\n";
    }
  }
}

nlohmann::json ToJson(const LopAnalysis& a) {
  nlohmann::json j;
  j["tool"] = "lopfit";
  j["stat"] = StatName(a.stat);
  j["units"] = "ns";
  j["models"] = {
      {"t_rtt", "l1/(l2+p) + l3 + l4*(1-exp(l5*(p-l6)))"},
      {"t_ov", "l1 + l2/(l3+p)"},
  };
  j["curves"] = nlohmann::json::array();
  for (const CurveFit& c : a.curves) {
    nlohmann::json jc;
    jc["name"] = c.curve.name;
    jc["kind"] = CurveKindName(c.curve.kind);
    jc["fitted"] = c.fitted;
    if (!c.note.empty()) jc["note"] = c.note;
    if (c.fitted) {
      jc["model"] = c.ModelName();
      jc["lambda"] = c.fit.params;
      jc["r2"] = Num(c.fit.r2);
      jc["ssr"] = Num(c.fit.ssr);
      jc["rms"] = Num(std::sqrt(c.fit.ssr / c.p.size()));
      jc["iterations"] = c.fit.iterations;
      jc["stop"] = StopReasonName(c.fit.reason);
    }
    jc["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < c.p.size(); ++i) {
      const double f = c.Eval(c.p[i]);
      jc["points"].push_back({{"p", c.p[i]},
                              {"y_ns", c.y[i]},
                              {"fit_ns", Num(f)},
                              {"residual_ns", Num(c.y[i] - f)}});
    }
    j["curves"].push_back(std::move(jc));
  }
  j["derived"] = nlohmann::json::array();
  for (const Derived& d : a.derived) {
    nlohmann::json jd;
    jd["quantity"] = d.list ? "L_list" : "L";
    jd["rtt"] = d.rtt;
    jd["overhead"] = d.overhead;
    jd["list"] = d.list;
    if (!d.note.empty()) jd["note"] = d.note;
    jd["points"] = nlohmann::json::array();
    for (const DerivedPoint& pt : d.points) {
      jd["points"].push_back({{"p", pt.p},
                              {"rtt2_ns", Num(pt.rtt2)},
                              {"os_p_ns", Num(pt.os_p)},
                              {"os_1_ns", Num(pt.os_1)},
                              {"L_ns", Num(pt.l)},
                              {"L_fit_ns", Num(pt.l_fit)},
                              {"t_pred_ns", Num(pt.t_pred)},
                              {"t_pred_fit_ns", Num(pt.t_pred_fit)}});
    }
    j["derived"].push_back(std::move(jd));
  }
  return j;
}

namespace {

// <curve>.dat: the measured points, the fit and the residuals.
void WriteCurveData(const std::filesystem::path& path, const CurveFit& c,
                    Stat stat) {
  std::ofstream out(path);
  out << "# " << c.curve.name << " (" << StatName(stat)
      << ")\n# p y fit residual min median mean p99\n";
  for (std::size_t i = 0; i < c.p.size(); ++i) {
    const LopPoint& pt = c.curve.points[i];
    const double f = c.Eval(c.p[i]);
    out << GnuNum(c.p[i]) << ' ' << GnuNum(c.y[i]) << ' ' << GnuNum(f) << ' '
        << GnuNum(c.y[i] - f) << ' ' << GnuOpt(pt.min_ns) << ' '
        << GnuOpt(pt.median_ns) << ' ' << GnuOpt(pt.mean_ns) << ' '
        << GnuOpt(pt.p99_ns) << '\n';
  }
  CheckStream(out, path.string());
}

// <curve>.fit.dat: the fitted function sampled over the measured range.
void WriteCurveFit(const std::filesystem::path& path, const CurveFit& c) {
  std::ofstream out(path);
  out << "# " << c.curve.name << " fitted " << c.ModelName() << "\n# p fit\n";
  const double lo = c.p.front();
  const double hi = c.p.back();
  constexpr int kSteps = 200;
  for (int s = 0; s <= kSteps; ++s) {
    const double p = lo + (hi - lo) * s / kSteps;
    out << GnuNum(p) << ' ' << GnuNum(c.Eval(p)) << '\n';
  }
  CheckStream(out, path.string());
}

}  // namespace

void WriteGnuplotDir(const std::string& dir, const LopAnalysis& a) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw LopInputError("cannot create directory '" + dir + "'");
  }
  const std::filesystem::path base(dir);
  const std::string index_path = (base / "curves.tsv").string();
  std::ofstream index(index_path);
  CheckStream(index, index_path);
  index << "# type\tname\tdata\tfit\tlabel\n";
  for (const CurveFit& c : a.curves) {
    const std::string stem = SafeName(c.curve.name);
    const std::string dat = stem + ".dat";
    WriteCurveData(base / dat, c, a.stat);
    std::string fit = "-";
    if (c.fitted) {
      fit = stem + ".fit.dat";
      WriteCurveFit(base / fit, c);
    }
    std::string type = CurveKindName(c.curve.kind);
    if (c.curve.kind == CurveKind::kOverhead) {
      type = c.curve.side.empty()
                 ? (IsSendOverhead(c.curve) ? "overhead_send" : "overhead_recv")
                 : "overhead_" + c.curve.side;
    }
    std::string label = c.curve.name;
    if (c.fitted) label += " (R^2=" + Sci(c.fit.r2) + ")";
    index << type << '\t' << c.curve.name << '\t' << dat << '\t' << fit << '\t'
          << label << '\n';
  }
  for (const Derived& d : a.derived) {
    const std::string dat =
        std::string(d.list ? "derived_Llist_" : "derived_L_") +
        SafeName(d.rtt) + ".dat";
    const std::string path = (base / dat).string();
    std::ofstream out(path);
    out << "# " << (d.list ? "L_list" : "L") << " from " << d.rtt << " and "
        << d.overhead << "\n# p L L_fit t_pred t_pred_fit rtt2 os_p os_1\n";
    for (const DerivedPoint& pt : d.points) {
      out << GnuNum(pt.p) << ' ' << GnuNum(pt.l) << ' ' << GnuNum(pt.l_fit)
          << ' ' << GnuNum(pt.t_pred) << ' ' << GnuNum(pt.t_pred_fit) << ' '
          << GnuNum(pt.rtt2) << ' ' << GnuNum(pt.os_p) << ' ' << GnuNum(pt.os_1)
          << '\n';
    }
    CheckStream(out, path);
    index << (d.list ? "Llist" : "L") << '\t' << d.rtt << '\t' << dat << "\t-\t"
          << (d.list ? "L_list " : "L ") << d.rtt << '\n';
  }
  CheckStream(index, index_path);
}

}  // namespace verbsemu::fit
