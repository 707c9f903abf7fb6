#include "sweep/plot.h"

#include <cstdio>
#include <utility>

#include "plot/gnuplot.h"
#include "sweep/internal/write_file.h"

namespace verbsemu::sweep {
namespace {

std::string Row(double x, const Summary& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.9g %.9g %.9g %.9g %zu\n", x, s.median,
                s.median_ci.lo, s.median_ci.hi, s.n);
  return buf;
}

std::string FitExpression(double intercept, double slope) {
  return plot::Number(intercept) + " + " + plot::Number(slope) + " * x";
}

// The tolerance band: the 95% interval of the largest added latency (or
// smallest share, in %) within 5% of the baseline, shaded, and its value
// as a dotted line; nothing when it lies beyond the swept range.
std::vector<plot::Band> Bands(const std::vector<Tolerance>& ts, double scale) {
  for (const Tolerance& t : ts) {
    if (!t.ok || t.within != 0.05 || t.extrapolated) continue;
    return {{.from = t.ci.lo * scale,
             .to = t.ci.hi * scale,
             .line_at = t.value * scale,
             .label = "within 5%"}};
  }
  return {};
}

// What both plots share: the grid, the key, room around the points, and
// the metric with its interval on the y axis.
plot::Panel Frame(const std::string& axis, const std::string& against) {
  plot::Panel p;
  p.title = axis + " against " + against;
  p.key.place = plot::KeyPlace::kTopLeft;
  p.offsets = plot::Offsets{0.04, 0.04, 0.08, 0.08};
  p.y.label = axis + " (median, 95% CI)";
  return p;
}

plot::Series Medians(const char* file) {
  return plot::Series::File(
      file, {plot::Col(1), plot::Col(2), plot::Col(3), plot::Col(4)},
      {.style = plot::Style::kYErrorBars, .point = 7}, "median, 95% CI");
}

// The latency plot: the medians with their intervals, the blocked robust
// line (the headline) and least squares over the runs.
plot::Figure LatencyFigure(const Analysis& a) {
  plot::Panel p = Frame(a.label.Axis(), "added latency");
  p.x.label = "added one-way latency (us)";
  p.bands = Bands(a.latency_tolerance, 1);
  p.series = {Medians("latency.dat")};
  char title[160];
  if (a.latency_blocked.ok) {
    const BlockedFit& f = a.latency_blocked;
    std::snprintf(title, sizeof title,
                  "blocked robust fit: %.4g %s/us (95%% CI %.4g .. %.4g)",
                  f.slope, a.label.unit.c_str(), f.slope_ci.lo, f.slope_ci.hi);
    p.series.push_back(plot::Series::Function(
        FitExpression(f.intercept, f.slope), {.width = 2}, title));
  }
  if (a.latency.ok) {
    std::snprintf(title, sizeof title, "least squares: %.4g per us, R^2 %.3f",
                  a.latency.slope, a.latency.r2);
    p.series.push_back(plot::Series::Function(
        FitExpression(a.latency.intercept, a.latency.slope), {.dash = 2},
        title));
  }
  return {.output = "latency.png", .panels = {p}};
}

plot::Figure BandwidthFigure(const Analysis& a) {
  plot::Panel p = Frame(a.label.Axis(), "bandwidth");
  p.x.label = "bandwidth (% of the link)";
  p.bands = Bands(a.bandwidth_tolerance, 100);
  p.series = {
      Medians("bandwidth.dat"),
      plot::Series::File("bandwidth.dat", {plot::Col(1), plot::Col(2)}, {})};
  return {.output = "bandwidth.png", .panels = {p}};
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
  plot::Script script;
  script.comments = {"metric: " + plot::Quote(metric)};
  script.terminal = {.width = 900, .height = 600};
  if (latency) script.figures.push_back(LatencyFigure(a));
  if (bandwidth) script.figures.push_back(BandwidthFigure(a));
  for (const plot::Figure& f : script.figures) files.pngs.push_back(f.output);
  files.script = plot::Render(script);
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
