#include "models/lop/lop_report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/fit/report_format.h"

namespace verbsemu::fit {
namespace {

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

std::string GnuNum(double v) { return std::isfinite(v) ? SciOrDash(v) : "NaN"; }
std::string GnuOpt(const std::optional<double>& v) {
  return v ? GnuNum(*v) : "NaN";
}

void CheckStream(const std::ofstream& out, const std::string& path) {
  if (!out) throw LopInputError("cannot write '" + path + "'");
}

// "name=value ± half-width" per parameter, or "(not identified)".
void PrintParams(std::ostream& out, const ModelFit& m) {
  for (std::size_t j = 0; j < m.spec->params.size(); ++j) {
    out << "    " << m.spec->params[j] << " = " << SciOrDash(m.fit.params[j]);
    if (m.fit.Identified(j)) {
      out << " ± " << SciOrDash(m.fit.HalfWidth95(j)) << " (95%; se "
          << SciOrDash(m.fit.se[j]) << ")\n";
    } else {
      out << "  (not identified by the data"
          << (m.fit.at_bound[j] ? ": at its bound" : "") << ")\n";
    }
  }
}

void PrintFamily(std::ostream& out, const CurveFit& c) {
  out << "  model      k   rel.rms      AICc   F vs logp  p-value\n";
  for (std::size_t i = 0; i < c.family.fits.size(); ++i) {
    const ModelFit& m = c.family.fits[i];
    const bool chosen = static_cast<int>(i) == c.family.chosen;
    char line[160];
    std::snprintf(line, sizeof line, "%c %-9s %2zu %9.4f %9s %11s %8s\n",
                  chosen ? '*' : ' ', m.spec->name.c_str(),
                  m.spec->params.size(), std::sqrt(m.fit.sigma2),
                  SciOrDash(m.aicc).c_str(), SciOrDash(m.vs_logp.f).c_str(),
                  SciOrDash(m.vs_logp.p_value).c_str());
    out << line;
  }
  const ModelFit& m = *c.family.Chosen();
  out << "  " << c.ModelName() << " = " << m.spec->formula << "  ("
      << m.spec->name << ", R^2=" << SciOrDash(m.fit.r2) << ", "
      << m.fit.iterations << " iterations, " << m.fit.stop << ")\n";
  PrintParams(out, m);
}

void PrintCurve(std::ostream& out, const CurveFit& c) {
  out << "\ncurve " << c.curve.name << "  [" << Describe(c.curve) << "]  "
      << c.p.size() << " points\n";
  if (c.fitted()) {
    PrintFamily(out, c);
  } else {
    out << "  " << c.note << "\n";
  }
  if (c.curve.kind == CurveKind::kRound) return;  // its rtt curve shows it
  out << "       p    measured         fit    residual\n";
  for (std::size_t i = 0; i < c.p.size(); ++i) {
    const double f = c.Eval(c.p[i]);
    out << FixedOrDash(c.p[i], 8, 0) << FixedOrDash(c.y[i], 12, 1)
        << FixedOrDash(f, 12, 1) << FixedOrDash(c.y[i] - f, 12, 1) << "\n";
  }
}

void PrintDerived(std::ostream& out, const Derived& d) {
  const char* l = d.list ? "L_list" : "L";
  const char* t = d.list ? "t^list_1:n" : "t_1:n";
  out << "\n"
      << l << "(p) from " << d.rtt << " and " << d.overhead << ": " << l
      << " = t_rtt(p)/2 - (" << (d.list ? "p*" : "") << "o_s(p) + o_s(1)), "
      << t << " = " << (d.list ? "n*" : "") << "o(n) + n*" << l << "(n)\n";
  if (!d.note.empty()) out << "  note: " << d.note << "\n";
  out << "       p    t_rtt(p)      o_s(p)      o_s(1)"
      << (d.list ? "   L_list(p)  L_list fit" : "        L(p)    L(p) fit")
      << "     t_1:n   t_1:n fit  t_1:n LogP  fit error\n";
  for (const DerivedPoint& pt : d.points) {
    out << FixedOrDash(pt.p, 8, 0) << FixedOrDash(pt.t_rtt, 12, 1)
        << FixedOrDash(pt.os_p, 12, 1) << FixedOrDash(pt.os_1, 12, 1)
        << FixedOrDash(pt.l, 12, 1) << FixedOrDash(pt.l_fit, 12, 1)
        << FixedOrDash(pt.t_pred, 10, 1) << FixedOrDash(pt.t_pred_fit, 12, 1)
        << FixedOrDash(pt.t_pred_logp, 12, 1)
        << FixedOrDash(100 * pt.fit_error, 10, 1) << "%\n";
  }
  out << "  largest fit error: " << FixedOrDash(100 * d.MaxFitError(), 1, 1)
      << "% of n*t_rtt(n)/2\n";
}

nlohmann::json ModelJson(const ModelFit& m) {
  nlohmann::json params = nlohmann::json::object();
  for (std::size_t j = 0; j < m.spec->params.size(); ++j) {
    const double h = m.fit.HalfWidth95(j);
    params[m.spec->params[j]] = {
        {"value", m.fit.params[j]},
        {"se", NumOrNull(m.fit.Identified(j) ? m.fit.se[j] : kNaN)},
        {"ci95",
         {NumOrNull(m.fit.params[j] - h), NumOrNull(m.fit.params[j] + h)}},
        {"identified", m.fit.Identified(j)}};
  }
  return {{"model", m.spec->name},
          {"formula", m.spec->formula},
          {"params", params},
          {"wssr", NumOrNull(m.fit.wssr)},
          {"ssr", NumOrNull(m.fit.ssr)},
          {"r2", NumOrNull(m.fit.r2)},
          {"dof", m.fit.dof},
          {"aicc", NumOrNull(m.aicc)},
          {"f_vs_logp", NumOrNull(m.vs_logp.f)},
          {"p_vs_logp", NumOrNull(m.vs_logp.p_value)},
          {"iterations", m.fit.iterations},
          {"stop", m.fit.stop}};
}

nlohmann::json CurveJson(const CurveFit& c) {
  nlohmann::json jc = {{"name", c.curve.name},
                       {"kind", CurveKindName(c.curve.kind)},
                       {"fitted", c.fitted()}};
  if (!c.note.empty()) jc["note"] = c.note;
  if (c.fitted()) {
    jc["function"] = c.ModelName();
    jc["chosen"] = c.family.Chosen()->spec->name;
    jc["models"] = nlohmann::json::array();
    for (const ModelFit& m : c.family.fits)
      jc["models"].push_back(ModelJson(m));
  }
  jc["points"] = nlohmann::json::array();
  for (std::size_t i = 0; i < c.p.size(); ++i) {
    const double f = c.Eval(c.p[i]);
    jc["points"].push_back({{"p", c.p[i]},
                            {"y_ns", c.y[i]},
                            {"fit_ns", NumOrNull(f)},
                            {"residual_ns", NumOrNull(c.y[i] - f)}});
  }
  return jc;
}

nlohmann::json DerivedJson(const Derived& d) {
  nlohmann::json jd = {{"quantity", d.list ? "L_list" : "L"},
                       {"rtt", d.rtt},
                       {"overhead", d.overhead},
                       {"list", d.list},
                       {"max_fit_error", NumOrNull(d.MaxFitError())},
                       {"points", nlohmann::json::array()}};
  if (!d.note.empty()) jd["note"] = d.note;
  for (const DerivedPoint& pt : d.points) {
    jd["points"].push_back({{"p", pt.p},
                            {"t_rtt_ns", NumOrNull(pt.t_rtt)},
                            {"os_p_ns", NumOrNull(pt.os_p)},
                            {"os_1_ns", NumOrNull(pt.os_1)},
                            {"L_ns", NumOrNull(pt.l)},
                            {"L_fit_ns", NumOrNull(pt.l_fit)},
                            {"t_pred_ns", NumOrNull(pt.t_pred)},
                            {"t_pred_fit_ns", NumOrNull(pt.t_pred_fit)},
                            {"t_pred_logp_ns", NumOrNull(pt.t_pred_logp)},
                            {"fit_error", NumOrNull(pt.fit_error)}});
  }
  return jd;
}

}  // namespace

void PrintText(std::ostream& out, const LopAnalysis& a) {
  out << "statistic: " << StatName(a.options.stat) << " (all times in ns), "
      << (a.options.weighting == Weighting::kRelative ? "relative" : "unit")
      << " weights; model chosen by AICc (*), F-test against LogP\n";
  for (const CurveFit& c : a.curves) PrintCurve(out, c);
  for (const Derived& d : a.derived) PrintDerived(out, d);
}

nlohmann::json ToJson(const LopAnalysis& a) {
  nlohmann::json j = {
      {"tool", "lopfit"},
      {"stat", StatName(a.options.stat)},
      {"weights",
       a.options.weighting == Weighting::kRelative ? "relative" : "unit"},
      {"units", "ns"},
      {"curves", nlohmann::json::array()},
      {"derived", nlohmann::json::array()}};
  for (const CurveFit& c : a.curves) j["curves"].push_back(CurveJson(c));
  for (const Derived& d : a.derived) j["derived"].push_back(DerivedJson(d));
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

// <curve>.fit.dat: the chosen fit and the LogP member over the data range.
void WriteCurveFit(const std::filesystem::path& path, const CurveFit& c) {
  std::ofstream out(path);
  out << "# " << c.curve.name << " fitted " << c.ModelName()
      << "\n# p fit logp\n";
  const double lo = c.p.front(), hi = c.p.back();
  constexpr int kSteps = 200;
  for (int s = 0; s <= kSteps; ++s) {
    const double p = lo + (hi - lo) * s / kSteps;
    out << GnuNum(p) << ' ' << GnuNum(c.Eval(p)) << ' ' << GnuNum(c.EvalLogP(p))
        << '\n';
  }
  CheckStream(out, path.string());
}

std::string IndexType(const CurveFit& c) {
  if (c.curve.kind != CurveKind::kOverhead) return CurveKindName(c.curve.kind);
  if (!c.curve.side.empty()) return "overhead_" + c.curve.side;
  return c.curve.name.rfind("os", 0) == 0 ? "overhead_send" : "overhead_recv";
}

void WriteDerived(const std::filesystem::path& path, const Derived& d) {
  std::ofstream out(path);
  out << "# " << (d.list ? "L_list" : "L") << " from " << d.rtt << " and "
      << d.overhead
      << "\n# p L L_fit t_pred t_pred_fit t_rtt os_p os_1 t_pred_logp "
         "fit_error\n";
  for (const DerivedPoint& pt : d.points) {
    out << GnuNum(pt.p) << ' ' << GnuNum(pt.l) << ' ' << GnuNum(pt.l_fit) << ' '
        << GnuNum(pt.t_pred) << ' ' << GnuNum(pt.t_pred_fit) << ' '
        << GnuNum(pt.t_rtt) << ' ' << GnuNum(pt.os_p) << ' ' << GnuNum(pt.os_1)
        << ' ' << GnuNum(pt.t_pred_logp) << ' ' << GnuNum(pt.fit_error) << '\n';
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
    WriteCurveData(base / (stem + ".dat"), c, a.options.stat);
    std::string fit = "-", label = c.curve.name;
    if (c.fitted()) {
      fit = stem + ".fit.dat";
      WriteCurveFit(base / fit, c);
      const ModelFit& m = *c.family.Chosen();
      label += " (" + m.spec->name + ", R^2=" + SciOrDash(m.fit.r2) + ")";
    }
    index << IndexType(c) << '\t' << c.curve.name << '\t' << stem << ".dat\t"
          << fit << '\t' << label << '\n';
  }
  for (const Derived& d : a.derived) {
    const std::string dat =
        std::string(d.list ? "derived_Llist_" : "derived_L_") +
        SafeName(d.rtt) + ".dat";
    WriteDerived(base / dat, d);
    index << (d.list ? "Llist" : "L") << '\t' << d.rtt << '\t' << dat << "\t-\t"
          << (d.list ? "L_list " : "L ") << d.rtt << '\n';
  }
  CheckStream(index, index_path);
}

}  // namespace verbsemu::fit
