#include "sweep/answer.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "sweep/internal/format.h"
#include "sweep/internal/write_file.h"

namespace verbsemu::sweep {
namespace {

using internal::Fmt;

using Json = nlohmann::json;

std::string PerUnit(const MetricLabel& l) {
  return (l.unit.empty() ? std::string() : l.unit + " ") +
         "per µs of one-way latency";
}

std::string CiText(const BlockedFit& f) {
  return "95% CI " + Fmt("%.4g", f.slope_ci.lo) + " .. " +
         Fmt("%.4g", f.slope_ci.hi);
}

std::string HeadlineText(const Analysis& a) {
  const BlockedFit& f = a.latency_blocked;
  if (!f.ok) return "";
  std::string out = "slope against added latency: " + Fmt("%+.4g", f.slope) +
                    " " + PerUnit(a.label) + " (" + CiText(f) +
                    "; within blocks, robust: " + std::to_string(f.n) +
                    " runs in " + std::to_string(f.blocks) + " blocks)\n";
  for (const SetAside& s : a.set_aside) {
    out += "  set aside: run " + std::to_string(s.run) + " (" + s.latency +
           ", block " + std::to_string(s.block) +
           "): " + Fmt("%.6g", s.metric) + ", " + Fmt("%+.1f", s.scales) +
           " robust SDs off its block's line\n";
  }
  return out;
}

// How far the waits' slope may be from 1 before the answer says so.
constexpr double kDeliveredSlack = 0.02;

// What the shim delivered beside what was asked, and the metric against
// it: a slope above 1 per µs asked is the emulator's (or the machine's)
// doing, not the application's.
std::string DeliveredText(const Analysis& a) {
  if (!a.delivered.ok || !a.delivered_own.ok) return "";
  std::string out = "the shim's waits: " + Fmt("%.4g", a.delivered.slope) +
                    " µs per µs asked (" + CiText(a.delivered) + "), " +
                    Fmt("%.4g", a.delivered_own.slope) +
                    " without the CPU the waiting threads lost (" +
                    CiText(a.delivered_own) + ")\n";
  if (a.latency_delivered.ok && a.latency_delivered_own.ok) {
    out += "slope against the delay delivered: " +
           Fmt("%+.4g", a.latency_delivered.slope) + " " +
           (a.label.unit.empty() ? std::string() : a.label.unit + " ") +
           "per µs the shim's waits lasted (" + CiText(a.latency_delivered) +
           "), " + Fmt("%+.4g", a.latency_delivered_own.slope) +
           " per µs of the spins' own (" + CiText(a.latency_delivered_own) +
           "): a mean follows the first, a minimum the second\n";
  }
  // In words, when the intervals leave no doubt.
  if (a.delivered.slope_ci.lo > 1 + kDeliveredSlack) {
    out += "  the waits lasted " +
           Fmt("%.0f%%", (a.delivered.slope - 1) * 100) +
           " longer than asked: CPU the waiting threads lost (a busy "
           "machine, or more threads than CPUs), which a mean metric's "
           "slope per µs asked includes\n";
  }
  const Interval& own = a.delivered_own.slope_ci;
  if (own.lo > 1 + kDeliveredSlack || own.hi < 1 - kDeliveredSlack) {
    out += "  the spins' own waits are " +
           Fmt("%+.1f%%", (a.delivered_own.slope - 1) * 100) +
           " off what was asked: the emulator's error, not the "
           "application's\n";
  }
  return out;
}

// The control beside the shim: a slope the program's own wait shares is
// the machine's, the rest the shim's.
std::string ControlText(const Analysis& a) {
  if (!a.control_blocked.ok) return "";
  const std::string unit = a.label.unit.empty() ? "" : a.label.unit + " ";
  std::string out = "the control (the program's own wait, no shim): " +
                    Fmt("%+.4g", a.control_blocked.slope) + " " + unit +
                    "per µs (" + CiText(a.control_blocked) + ")";
  // A ratio means something only against a control that rose.
  if (a.latency_blocked.ok && a.control_blocked.slope_ci.lo > 0) {
    out += "; the shim's " + Fmt("%+.4g", a.latency_blocked.slope) +
           ", its ratio to the control's " +
           Fmt("%.4g", a.latency_blocked.slope / a.control_blocked.slope) +
           ": what a wait costs this machine whoever waits is the "
           "control's slope, what the shim adds beyond it the ratio's "
           "distance from 1";
  }
  return out + "\n";
}

std::string NoisyText(const Analysis& a) {
  std::string out;
  for (const PointResult& p : a.points) {
    if (!p.noisy) continue;
    out += (out.empty() ? "noisy points (CV over " + Fmt("%.0f", kNoisyFactor) +
                              "x the points' median): "
                        : std::string(", ")) +
           p.point.latency + "/" + p.point.bandwidth + " CV " +
           Fmt("%.1f%%", p.cv * 100);
  }
  return out.empty() ? "" : out + "\n";
}

std::string Bound(double v, const char* format) {
  return std::isinf(v) ? std::string("beyond any") : Fmt(format, v);
}

std::string ToleranceText(const char* what, const std::vector<Tolerance>& ts,
                          const char* format, double scale) {
  std::string out;
  for (const Tolerance& t : ts) {
    if (!t.ok) continue;
    out +=
        std::string(what) + " within " + Fmt("%.0f%%", t.within * 100) +
        " of the baseline: " + Bound(t.value * scale, format) + " (95% CI " +
        Bound(t.ci.lo * scale, format) + " .. " +
        Bound(t.ci.hi * scale, format) + ")" +
        (t.extrapolated ? ", beyond the swept range: the line extended" : "") +
        "\n";
  }
  return out;
}

Json Num(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json BlockedJson(const BlockedFit& f) {
  if (!f.ok) return nullptr;
  return {{"slope", f.slope},
          {"slope_ci", {f.slope_ci.lo, f.slope_ci.hi}},
          {"intercept", f.intercept},
          {"robust_sd", f.scale},
          {"n", f.n},
          {"blocks", f.blocks},
          {"pairs", f.pairs}};
}

Json TolerancesJson(const std::vector<Tolerance>& ts) {
  Json out = Json::array();
  for (const Tolerance& t : ts) {
    if (!t.ok) continue;
    out.push_back({{"within", t.within},
                   {"value", Num(t.value)},
                   {"ci", {Num(t.ci.lo), Num(t.ci.hi)}},
                   {"extrapolated", t.extrapolated}});
  }
  return out;
}

// ns per unit of a time metric; 0 for anything else.
double NsPerUnit(const MetricLabel& l) {
  if (l.wall_time) return 1e9;
  static const std::map<std::string, double> kTime = {
      {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"µs", 1e3}, {"ns", 1}};
  const auto it = kTime.find(l.unit);
  return it == kTime.end() ? 0 : it->second;
}

}  // namespace

std::string AnswerText(const Analysis& a) {
  return HeadlineText(a) + DeliveredText(a) + ControlText(a) + NoisyText(a) +
         ToleranceText("latency", a.latency_tolerance, "%.4g µs", 1) +
         ToleranceText("bandwidth", a.bandwidth_tolerance, "%.4g%%", 100);
}

Json AnswerJson(const Analysis& a) {
  Json set_aside = Json::array();
  for (const SetAside& s : a.set_aside) {
    set_aside.push_back({{"run", s.run},
                         {"block", s.block},
                         {"latency", s.latency},
                         {"metric", s.metric},
                         {"robust_sds", s.scales}});
  }
  Json noisy = Json::array();
  for (size_t i = 0; i < a.points.size(); ++i) {
    if (a.points[i].noisy) noisy.push_back(i);
  }
  return {
      {"metric",
       {{"name", a.label.name},
        {"unit", a.label.unit},
        {"better", a.label.better == Better::kLower ? "lower" : "higher"}}},
      {"latency_blocked", BlockedJson(a.latency_blocked)},
      {"delivered",
       {{"per_asked", BlockedJson(a.delivered)},
        {"own_per_asked", BlockedJson(a.delivered_own)},
        {"metric_per_delivered", BlockedJson(a.latency_delivered)},
        {"metric_per_delivered_own", BlockedJson(a.latency_delivered_own)}}},
      {"control_blocked", BlockedJson(a.control_blocked)},
      {"set_aside", set_aside},
      {"noisy_points", noisy},
      {"latency_tolerance_us", TolerancesJson(a.latency_tolerance)},
      {"bandwidth_blocked", BlockedJson(a.bandwidth_blocked)},
      {"bandwidth_tolerance_share", TolerancesJson(a.bandwidth_tolerance)}};
}

std::vector<std::pair<std::string, std::string>> LlampFiles(const Analysis& a) {
  const double ns = NsPerUnit(a.label);
  const BlockedFit& f = a.latency_blocked;
  if (ns == 0 || !f.ok) return {};
  // dT/dL: metric units per µs, in ns per ns.
  const std::string sensitivity = Fmt("%.9g", f.slope * ns / 1e3);
  std::string sens = "L,sensitivity\n", runtime = "L,runtime\n";
  for (const PointResult& p : a.points) {
    if (p.point.bandwidth_share != 1 || !p.point.plain() || p.summary.n == 0) {
      continue;
    }
    const std::string l = Fmt("%.9g", p.point.latency_ns);
    sens += l + "," + sensitivity + "\n";
    runtime += l + "," + Fmt("%.9g", p.summary.median * ns) + "\n";
  }
  std::string tol = "latency_threshold,latency_tolerance\n";
  for (const Tolerance& t : a.latency_tolerance) {
    if (t.ok && std::isfinite(t.value)) {
      tol += Fmt("%g", t.within) + "," + Fmt("%.9g", t.value * 1e3) + "\n";
    }
  }
  return {{"llamp_lat_sensitivity.csv", sens},
          {"llamp_runtime.csv", runtime},
          {"llamp_lat_tolerance.csv", tol}};
}

bool WriteLlampFiles(const Analysis& a, const std::string& dir,
                     std::string* why) {
  for (const auto& [name, text] : LlampFiles(a)) {
    if (!internal::WriteFileAtomic(dir + "/" + name, text, why)) return false;
  }
  return true;
}

}  // namespace verbsemu::sweep
