#include "sweep/output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "sweep/answer.h"

namespace verbsemu::sweep {
namespace {

using Json = nlohmann::json;

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The LogGP axes a point sets, "  [overhead 1us, gap 500ns]"; "" for none.
std::string AxesText(const GridPoint& p) {
  std::string out;
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    if (p.durations_ns[i] == 0) continue;
    out += (out.empty() ? "  [" : ", ") + std::string(kDurationAxes[i].name) +
           " " + p.durations[i];
  }
  return out.empty() ? "" : out + "]";
}

std::string PointRow(const PointResult& p) {
  char row[256];
  const Summary& s = p.summary;
  if (s.n == 0) {
    std::snprintf(row, sizeof row, "%-9s %-10s %4d %6d %7d   no valid run%s",
                  p.point.latency.c_str(), p.point.bandwidth.c_str(), p.runs,
                  p.failed, p.invalid, p.invalid ? "  INVALID" : "");
    return row + AxesText(p.point) + "\n";
  }
  std::snprintf(row, sizeof row,
                "%-9s %-10s %4d %6d %7d %12.6g [%.6g, %.6g] %12.6g ± %.3g "
                "%5.1f%%%s%s",
                p.point.latency.c_str(), p.point.bandwidth.c_str(), p.runs,
                p.failed, p.invalid, s.median, s.median_ci.lo, s.median_ci.hi,
                s.mean, (s.mean_ci.hi - s.mean_ci.lo) / 2, p.cv * 100,
                p.noisy ? "  NOISY" : "", p.invalid ? "  INVALID" : "");
  return row + AxesText(p.point) + "\n";
}

std::string SlopeLine(const char* what, const LineFit& f, const char* unit) {
  if (!f.ok) return "";
  char line[256];
  std::snprintf(line, sizeof line,
                "%s: %+.4g %s (95%% CI %.4g .. %.4g), R² %.3f, %zu runs\n",
                what, f.slope, unit, f.slope_ci.lo, f.slope_ci.hi, f.r2, f.n);
  return line;
}

std::string FitLines(const Analysis& a) {
  std::string out = AnswerText(a);
  out += SlopeLine("  least squares over the runs (blocks ignored)", a.latency,
                   "per µs");
  if (a.latency_medians.ok) {
    out += "  the points' medians: " + Fmt("%+.4g", a.latency_medians.slope) +
           " per µs, R² " + Fmt("%.3f", a.latency_medians.r2) + " (" +
           std::to_string(a.latency_medians.n) + " points)\n";
  }
  if (a.c_a_raw) {
    out +=
        "c_a (runtime per unit of one-way delay): " + Fmt("%.4g", *a.c_a_raw) +
        " (95% CI " + Fmt("%.4g", a.c_a_raw_ci.lo) + " .. " +
        Fmt("%.4g", a.c_a_raw_ci.hi) + ")\n";
  }
  if (a.c_a.ok) {
    out += "c_a normalised to the ping-pong (ping-pong = 1): " +
           Fmt("%.4g", a.c_a.value) + " (95% CI " + Fmt("%.4g", a.c_a.ci.lo) +
           " .. " + Fmt("%.4g", a.c_a.ci.hi) + ")" +
           (a.runtime_metric ? "" : ", taking the metric to be in seconds") +
           "\n";
  }
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    const std::string what =
        "slope against " + std::string(kDurationAxes[i].name);
    out += SlopeLine(what.c_str(), a.durations[i],
                     kDurationAxes[i].name == "gap"
                         ? "per µs between messages (1/message rate)"
                         : "per µs");
  }
  out += SlopeLine("slope against bandwidth share", a.bandwidth,
                   "per unit share (1 = the full link)");
  if (a.holds_down_to || a.first_beyond) {
    out += "bandwidth: within 5% of the baseline down to " +
           (a.holds_down_to ? Fmt("%.4g%%", *a.holds_down_to * 100)
                            : std::string("no tested share")) +
           (a.first_beyond
                ? "; at " + Fmt("%.4g%%", *a.first_beyond * 100) +
                      " it changes by " + Fmt("%+.1f%%", a.beyond_change * 100)
                : std::string("")) +
           "\n";
  }
  return out;
}

// NAME and NAME_ns per kDurationAxes row.
void AddDurations(const DurationTexts& texts, const DurationNs& ns, Json* j) {
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    const std::string name(kDurationAxes[i].name);
    (*j)[name] = texts[i];
    (*j)[name + "_ns"] = ns[i];
  }
}

Json FitJson(const LineFit& f) {
  if (!f.ok) return nullptr;
  return {{"slope", f.slope},
          {"slope_ci", {f.slope_ci.lo, f.slope_ci.hi}},
          {"intercept", f.intercept},
          {"r2", f.r2},
          {"n", f.n}};
}

Json RunJson(const RunRecord& r,
             const std::vector<std::pair<std::string, std::string>>& reports) {
  Json rep = Json::object();
  for (const auto& [name, text] : reports) rep[name] = text;
  Json j = {{"run", r.run},
            {"block", r.block},
            {"point", r.point},
            {"program", r.program},
            {"latency", r.latency},
            {"latency_ns", r.latency_ns},
            {"bandwidth", r.bandwidth},
            {"bandwidth_share", r.bandwidth_share},
            {"bw_mode", r.bw_mode},
            {"metric", r.metric ? Json(*r.metric) : Json(nullptr)},
            {"wall_s", r.wall_s},
            {"status", r.status},
            {"valid", r.valid},
            {"reason", r.reason},
            {"reports", rep},
            {"waits", r.waits},
            {"wait_ns", r.wait_ns},
            {"wait_own_ns", r.wait_own_ns}};
  AddDurations(r.durations, r.durations_ns, &j);
  return j;
}

}  // namespace

std::string TableText(const Analysis& a, const std::string& metric) {
  std::string out =
      "metric: " + a.label.Axis() +
      (a.label.better == Better::kLower ? ", lower" : ", higher") +
      " is better (" + metric + ")\n";
  out +=
      "latency   bandwidth  runs failed invalid       median [95% CI]      "
      "        mean ± 95%     CV\n";
  for (const PointResult& p : a.points) out += PointRow(p);
  return out + FitLines(a);
}

namespace {

Json PointJson(const PointResult& p) {
  const Summary& s = p.summary;
  Json j = {{"latency", p.point.latency},
            {"latency_ns", p.point.latency_ns},
            {"bandwidth", p.point.bandwidth},
            {"bandwidth_share", p.point.bandwidth_share},
            {"runs", p.runs},
            {"valid_runs", s.n},
            {"failed", p.failed},
            {"invalid", p.invalid},
            {"valid", p.valid()},
            {"median", s.median},
            {"median_ci", {s.median_ci.lo, s.median_ci.hi}},
            {"mean", s.mean},
            {"mean_ci", {s.mean_ci.lo, s.mean_ci.hi}},
            {"sd", s.sd},
            {"cv", p.cv},
            {"noisy", p.noisy},
            {"first_reason", p.first_reason}};
  AddDurations(p.point.durations, p.point.durations_ns, &j);
  return j;
}

Json FitsJson(const Analysis& a) {
  Json robust = nullptr;
  if (a.latency_robust.ok) {
    robust = {{"slope", a.latency_robust.slope},
              {"slope_ci",
               {a.latency_robust.slope_ci.lo, a.latency_robust.slope_ci.hi}},
              {"intercept", a.latency_robust.intercept},
              {"n", a.latency_robust.n}};
  }
  Json fits = {{"answer", AnswerJson(a)},
               {"latency", FitJson(a.latency)},
               {"latency_robust", robust},
               {"latency_medians", FitJson(a.latency_medians)},
               {"pingpong", FitJson(a.pingpong)},
               {"bandwidth", FitJson(a.bandwidth)}};
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    fits[std::string(kDurationAxes[i].name)] = FitJson(a.durations[i]);
  }
  if (a.c_a_raw) {
    fits["c_a_raw"] = {{"value", *a.c_a_raw},
                       {"ci", {a.c_a_raw_ci.lo, a.c_a_raw_ci.hi}}};
  }
  if (a.c_a.ok) {
    fits["c_a"] = {{"value", a.c_a.value}, {"ci", {a.c_a.ci.lo, a.c_a.ci.hi}}};
  }
  if (a.holds_down_to) {
    fits["bandwidth_holds_within_5pct_down_to"] = *a.holds_down_to;
  }
  return fits;
}

}  // namespace

std::string SweepJson(
    const SweepPlan& plan, const Analysis& a,
    const std::vector<RunRecord>& records,
    const std::vector<std::vector<std::pair<std::string, std::string>>>&
        reports,
    const Json& precision) {
  Json points = Json::array();
  for (const PointResult& p : a.points) points.push_back(PointJson(p));
  Json runs = Json::array();
  for (size_t i = 0; i < records.size(); ++i) {
    runs.push_back(RunJson(
        records[i], i < reports.size() ? reports[i] : decltype(reports[0]){}));
  }
  // The plan as plan.json has it (one writer), less the order: each run
  // carries its block and point.
  Json plan_json = Json::parse(PlanToJson(plan));
  plan_json.erase("order");
  Json j = {{"plan", plan_json},
            {"points", points},
            {"fits", FitsJson(a)},
            {"all_valid", a.all_valid},
            {"runs", runs}};
  if (!precision.is_null()) j["precision"] = precision;
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace verbsemu::sweep
