#include "models/loggp/loggp_report.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "models/fit/report_format.h"

namespace verbsemu::fit {
namespace {

using nlohmann::json;

std::string Flags(const LoggpSize& s) {
  std::string out;
  for (const std::string& f : s.flags) out += (out.empty() ? "" : ", ") + f;
  return out;
}

void PrintSizes(std::ostream& out, const LoggpAnalysis& a) {
  out << "     size  PRTT(1,0)  PRTT(n,0)  PRTT(n,d)          L        o_s"
         "        o_r        gap    fit gap  resid%  flags\n";
  for (const LoggpSize& s : a.sizes) {
    const LoggpPoint& p = s.point;
    out << FixedOrDash(p.size, 9, 0) << FixedOrDash(p.prtt_1_0, 11, 1)
        << FixedOrDash(p.prtt_n_0, 11, 1) << FixedOrDash(p.prtt_n_d, 11, 1)
        << FixedOrDash(s.latency, 11, 1) << FixedOrDash(p.o_s, 11, 1)
        << FixedOrDash(p.o_r, 11, 1) << FixedOrDash(p.gap, 11, 1)
        << FixedOrDash(s.fitted_gap, 11, 1)
        << FixedOrDash(100 * s.rel_residual, 8, 2);
    if (!s.flags.empty()) out << "  " << Flags(s);
    out << "\n";
  }
}

void PrintEstimate(std::ostream& out, const char* name, const Estimate& e,
                   const char* unit) {
  out << "  " << name << " = " << SciOrDash(e.value) << " " << unit;
  if (std::isfinite(e.half95)) {
    out << "  SE " << SciOrDash(e.se) << "  95% ["
        << SciOrDash(e.value - e.half95) << ", "
        << SciOrDash(e.value + e.half95) << "]\n";
  } else {
    out << "  (standard error not identified)\n";
  }
}

void PrintSegments(std::ostream& out, const LoggpAnalysis& a) {
  if (a.split_positions == 0) {
    out << "segmentations (no place for a breakpoint with " << kMinSegmentPoints
        << " sizes on each side):";
  } else {
    out << "segmentations (K+1 over K while AICc falls and the F-test p < "
        << SciOrDash(a.split_alpha) << "/" << a.split_positions << " = "
        << SciOrDash(a.split_level) << "):";
  }
  for (const SegmentationCandidate& c : a.candidates) {
    out << "  K=" << c.segments << " AICc " << SciOrDash(c.aicc);
    if (c.segments > 1) out << " p " << SciOrDash(c.split_p);
  }
  out << "\n";
  for (std::size_t k = 0; k < a.segments.size(); ++k) {
    const GapSegment& s = a.segments[k];
    out << "segment " << k + 1 << ": sizes " << SciOrDash(s.size_lo) << ".."
        << SciOrDash(s.size_hi) << " (" << s.sizes.size() << " sizes)\n";
    PrintEstimate(out, "g", s.g, "ns");
    PrintEstimate(out, "G", s.big_g, "ns/byte");
    out << "  1/G = " << SciOrDash(s.bandwidth_gbs)
        << " GB/s  R^2 = " << SciOrDash(s.r2)
        << "  rms relative residual = " << SciOrDash(100 * s.rms_rel_residual)
        << "%\n";
  }
}

json EstimateJson(const Estimate& e) {
  return {
      {"value", NumOrNull(e.value)},
      {"se", NumOrNull(e.se)},
      {"ci95", {NumOrNull(e.value - e.half95), NumOrNull(e.value + e.half95)}}};
}

json SizeJson(const LoggpSize& s) {
  const LoggpPoint& p = s.point;
  return {{"size", p.size},
          {"op", p.op},
          {"inline", p.is_inline ? json(*p.is_inline) : json(nullptr)},
          {"delay_ns", p.delay},
          {"prtt_1_0_ns", p.prtt_1_0},
          {"prtt_n_0_ns", p.prtt_n_0},
          {"prtt_n_d_ns", p.prtt_n_d},
          {"gap_ns", NumOrNull(p.gap)},
          {"o_s_ns", NumOrNull(p.o_s)},
          {"o_r_ns", p.o_r},
          {"L_ns", NumOrNull(s.latency)},
          {"fitted_gap_ns", NumOrNull(s.fitted_gap)},
          {"rel_residual", NumOrNull(s.rel_residual)},
          {"in_fit", s.in_fit},
          {"excluded", s.excluded.empty() ? json(nullptr) : json(s.excluded)},
          {"segment", s.segment < 0 ? json(nullptr) : json(s.segment + 1)},
          {"nearest_segment", s.nearest_segment},
          {"sender_bound", p.sender_bound},
          {"delay_covers_gap", p.delay_covers_gap},
          {"flags", s.flags}};
}

}  // namespace

void PrintLoggpText(std::ostream& out, const LoggpAnalysis& a) {
  out << "statistic: " << LoggpStatName(a.stat) << "  n = " << a.n
      << "  max segments: " << a.max_segments << "\n";
  PrintSizes(out, a);
  for (const LoggpSize& s : a.sizes) {
    if (!s.excluded.empty()) {
      out << "size " << SciOrDash(s.point.size)
          << " not in the gap fit: " << s.excluded << "\n";
    }
  }
  if (!a.identified()) {
    out << a.not_identified << "\n";
    return;
  }
  PrintSegments(out, a);
}

json LoggpToJson(const LoggpAnalysis& a) {
  json segments = json::array();
  for (const GapSegment& s : a.segments) {
    segments.push_back({{"size_lo", s.size_lo},
                        {"size_hi", s.size_hi},
                        {"points", s.sizes.size()},
                        {"g_ns", EstimateJson(s.g)},
                        {"G_ns_per_byte", EstimateJson(s.big_g)},
                        {"bandwidth_GBps", NumOrNull(s.bandwidth_gbs)},
                        {"r2", NumOrNull(s.r2)},
                        {"rms_rel_residual", NumOrNull(s.rms_rel_residual)}});
  }
  json candidates = json::array();
  for (const SegmentationCandidate& c : a.candidates) {
    candidates.push_back({{"segments", c.segments},
                          {"wssr", NumOrNull(c.wssr)},
                          {"aicc", NumOrNull(c.aicc)},
                          {"split_p_value", NumOrNull(c.split_p)}});
  }
  json sizes = json::array();
  for (const LoggpSize& s : a.sizes) sizes.push_back(SizeJson(s));
  return {{"tool", "loggpfit"},
          {"statistic", LoggpStatName(a.stat)},
          {"n", a.n},
          {"max_segments", a.max_segments},
          {"split_alpha", NumOrNull(a.split_alpha)},
          {"split_positions", a.split_positions},
          {"split_level", NumOrNull(a.split_level)},
          {"params", a.params},
          {"device", a.device},
          {"identified", a.identified()},
          {"not_identified",
           a.identified() ? json(nullptr) : json(a.not_identified)},
          {"segmentations", candidates},
          {"segments", segments},
          {"sizes", sizes}};
}

}  // namespace verbsemu::fit
