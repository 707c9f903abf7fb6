#include "sweep/plot.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "sweep/internal/format.h"
#include "sweep/internal/write_file.h"

namespace verbsemu::sweep {
namespace {

using internal::Fmt;

std::string Row(double x, const Summary& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.9g %.9g %.9g %.9g %zu\n", x, s.median,
                s.median_ci.lo, s.median_ci.hi, s.n);
  return buf;
}

// gnuplot strings are in double quotes; keep the title printable.
std::string Escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c >= 32) out += c;
  }
  return out;
}

std::string FitExpression(double intercept, double slope) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.9g + %.9g * x", intercept, slope);
  return buf;
}

}  // namespace

namespace {

// The tolerance band: the 95% interval of the largest added latency (or
// smallest share, in %) within 5% of the baseline, shaded, and its value
// as a dotted line; nothing when it lies beyond the swept range.
std::string Band(const std::vector<Tolerance>& ts, double scale) {
  for (const Tolerance& t : ts) {
    if (!t.ok || t.within != 0.05 || t.extrapolated) continue;
    const double lo = t.ci.lo * scale, hi = t.ci.hi * scale;
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "set object 1 rect from %.9g, graph 0 to %s, graph 1 behind "
        "fc rgb \"#dbe7f3\" fs solid 1.0 noborder\n"
        "set arrow 1 from %.9g, graph 0 to %.9g, graph 1 nohead dt 3\n"
        "set label 1 \"within 5%%\" at %.9g, graph 0.95 offset 0.5,0\n",
        lo, std::isinf(hi) ? "graph 1" : Fmt("%.9g", hi).c_str(),
        t.value * scale, t.value * scale, t.value * scale);
    return buf;
  }
  return "";
}

std::string Unset() { return "unset object 1\nunset arrow 1\nunset label 1\n"; }

// The latency plot's commands: the medians with their intervals, the
// blocked robust line (the headline) and least squares over the runs.
std::string LatencyCommands(const Analysis& a, const std::string& name) {
  std::string s =
      "set output \"latency.png\"\nset xlabel \"added one-way latency "
      "(us)\"\nset title \"" +
      name + " against added latency\"\n" + Band(a.latency_tolerance, 1);
  s += "plot \"latency.dat\" using 1:2:3:4 with yerrorbars pt 7 title "
       "\"median, 95% CI\"";
  const std::string unit = Escaped(a.label.unit);
  char title[160];
  if (a.latency_blocked.ok) {
    const BlockedFit& f = a.latency_blocked;
    std::snprintf(title, sizeof title,
                  "blocked robust fit: %.4g %s/us (95%% CI %.4g .. %.4g)",
                  f.slope, unit.c_str(), f.slope_ci.lo, f.slope_ci.hi);
    s += ", " + FitExpression(f.intercept, f.slope) +
         " with lines lw 2 title \"" + title + "\"";
  }
  if (a.latency.ok) {
    std::snprintf(title, sizeof title, "least squares: %.4g per us, R^2 %.3f",
                  a.latency.slope, a.latency.r2);
    s += ", " + FitExpression(a.latency.intercept, a.latency.slope) +
         " with lines dt 2 title \"" + title + "\"";
  }
  return s + "\n" + Unset();
}

std::string BandwidthCommands(const Analysis& a, const std::string& m) {
  return "set output \"bandwidth.png\"\nset xlabel \"bandwidth (% of the "
         "link)\"\nset title \"" +
         m + " against bandwidth\"\n" + Band(a.bandwidth_tolerance, 100) +
         "plot \"bandwidth.dat\" using 1:2:3:4 with yerrorbars pt 7 title "
         "\"median, 95% CI\", \"\" using 1:2 with lines notitle\n" +
         Unset();
}

}  // namespace

PlotFiles MakePlotFiles(const Analysis& a, const std::string& metric) {
  PlotFiles files;
  files.latency_data = "# latency_us median ci_lo ci_hi n\n";
  files.bandwidth_data = "# share_pct median ci_lo ci_hi n\n";
  bool latency = false, bandwidth = false;
  for (const PointResult& p : a.points) {
    if (p.summary.n == 0) continue;
    if (p.point.bandwidth_share == 1) {
      files.latency_data += Row(p.point.latency_ns / 1000, p.summary);
      latency = true;
    }
    if (p.point.latency_ns == 0 && p.point.bandwidth_share > 0) {
      files.bandwidth_data += Row(p.point.bandwidth_share * 100, p.summary);
      bandwidth = bandwidth || p.point.bandwidth_share < 1;
    }
  }
  const std::string m = Escaped(a.label.Axis());
  files.script =
      "# metric: " + Escaped(metric) + "\n" +
      "set terminal pngcairo size 900,600 noenhanced\n"
      "set grid\nset key top left\nset offsets graph 0.04, graph 0.04, "
      "graph 0.08, graph 0.08\nset ylabel \"" +
      m + " (median, 95% CI)\"\n";
  if (latency) {
    files.script += LatencyCommands(a, m);
    files.pngs.push_back("latency.png");
  }
  if (bandwidth) {
    files.script += BandwidthCommands(a, m);
    files.pngs.push_back("bandwidth.png");
  }
  return files;
}

PlotResult Plot(const Analysis& a, const std::string& metric,
                const std::string& dir, Executor* executor) {
  const PlotFiles f = MakePlotFiles(a, metric);
  PlotResult res;
  std::string* why = &res.note;
  if (f.pngs.empty()) {
    *why = "nothing to plot (no valid point)";
    return res;
  }
  const std::pair<const char*, const std::string*> files[] = {
      {"/latency.dat", &f.latency_data},
      {"/bandwidth.dat", &f.bandwidth_data},
      {"/plot.gp", &f.script}};
  for (const auto& [name, text] : files) {
    if (!internal::WriteFileAtomic(dir + name, *text, &res.error)) return res;
  }
  RunRequest req;
  // gnuplot resolves the script's relative names in its working directory.
  req.argv = {"/bin/sh", "-c", "cd \"$1\" && exec gnuplot plot.gp", "sh", dir};
  req.log_path = dir + "/plot.log";
  const RunOutcome out = executor->Run(req);
  if (out.started && out.exit_code == 127) {
    *why = "gnuplot is not installed here; draw them where it is: cd " + dir +
           " && gnuplot plot.gp";
    return res;
  }
  if (!out.ok()) {
    *why = "gnuplot failed (" + out.Describe() + "; see " + req.log_path +
           "); the data and plot.gp are in " + dir;
    return res;
  }
  res.pngs = f.pngs;
  return res;
}

}  // namespace verbsemu::sweep
