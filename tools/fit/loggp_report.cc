#include "tools/fit/loggp_report.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace verbsemu::fit {
namespace {

using nlohmann::json;

json Num(double v) {
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
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

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
    out << Fmt(p.size, 9, 0) << Fmt(p.prtt_1_0, 11, 1) << Fmt(p.prtt_n_0, 11, 1)
        << Fmt(p.prtt_n_d, 11, 1) << Fmt(s.latency, 11, 1) << Fmt(p.o_s, 11, 1)
        << Fmt(p.o_r, 11, 1) << Fmt(p.gap, 11, 1) << Fmt(s.fitted_gap, 11, 1)
        << Fmt(100 * s.rel_residual, 8, 2);
    if (!s.flags.empty()) out << "  " << Flags(s);
    out << "\n";
  }
}

void PrintEstimate(std::ostream& out, const char* name, const Estimate& e,
                   const char* unit) {
  out << "  " << name << " = " << Sci(e.value) << " " << unit;
  if (std::isfinite(e.half95)) {
    out << "  SE " << Sci(e.se) << "  95% [" << Sci(e.value - e.half95) << ", "
        << Sci(e.value + e.half95) << "]\n";
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
        << Sci(a.split_alpha) << "/" << a.split_positions << " = "
        << Sci(a.split_level) << "):";
  }
  for (const SegmentationCandidate& c : a.candidates) {
    out << "  K=" << c.segments << " AICc " << Sci(c.aicc);
    if (c.segments > 1) out << " p " << Sci(c.split_p);
  }
  out << "\n";
  for (std::size_t k = 0; k < a.segments.size(); ++k) {
    const GapSegment& s = a.segments[k];
    out << "segment " << k + 1 << ": sizes " << Sci(s.size_lo) << ".."
        << Sci(s.size_hi) << " (" << s.sizes.size() << " sizes)\n";
    PrintEstimate(out, "g", s.g, "ns");
    PrintEstimate(out, "G", s.big_g, "ns/byte");
    out << "  1/G = " << Sci(s.bandwidth_gbs) << " GB/s  R^2 = " << Sci(s.r2)
        << "  rms relative residual = " << Sci(100 * s.rms_rel_residual)
        << "%\n";
  }
}

json EstimateJson(const Estimate& e) {
  return {{"value", Num(e.value)},
          {"se", Num(e.se)},
          {"ci95", {Num(e.value - e.half95), Num(e.value + e.half95)}}};
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
          {"gap_ns", Num(p.gap)},
          {"o_s_ns", Num(p.o_s)},
          {"o_r_ns", p.o_r},
          {"L_ns", Num(s.latency)},
          {"fitted_gap_ns", Num(s.fitted_gap)},
          {"rel_residual", Num(s.rel_residual)},
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
      out << "size " << Sci(s.point.size)
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
                        {"bandwidth_GBps", Num(s.bandwidth_gbs)},
                        {"r2", Num(s.r2)},
                        {"rms_rel_residual", Num(s.rms_rel_residual)}});
  }
  json candidates = json::array();
  for (const SegmentationCandidate& c : a.candidates) {
    candidates.push_back({{"segments", c.segments},
                          {"wssr", Num(c.wssr)},
                          {"aicc", Num(c.aicc)},
                          {"split_p_value", Num(c.split_p)}});
  }
  json sizes = json::array();
  for (const LoggpSize& s : a.sizes) sizes.push_back(SizeJson(s));
  return {{"tool", "loggpfit"},
          {"statistic", LoggpStatName(a.stat)},
          {"n", a.n},
          {"max_segments", a.max_segments},
          {"split_alpha", Num(a.split_alpha)},
          {"split_positions", a.split_positions},
          {"split_level", Num(a.split_level)},
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
