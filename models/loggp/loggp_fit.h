// LogGP from a verbsbench loggp run (Netgauge's PRTT method, formulas in
// models/loggp/formulas.h). g and G come from the per-size gap
//   gap(s) = (PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = g_k + (s-1) G_k
// by segmented weighted linear regression (relative weights 1/gap²):
// contiguous segments in size order, each of at least kMinSegmentPoints
// sizes, at most max_segments. K+1 segments are taken over K (from K = 1
// up, stopping at the first refusal) only if AICc over the whole fit
// (2 parameters per segment and 1 per breakpoint) prefers them AND the
// nested F-test of the extra line passes at split_alpha / m, m the number
// of places a breakpoint was searched at: AICc alone split a straight
// line in 11.5% of noisy runs, as the best of m breakpoints is counted as
// one parameter. Netgauge starts a new protocol range where the residual
// doubles; this weighs the better fit against the search. Sizes whose
// train was paced by the sender bound g+(s-1)G from above only and are
// left out.
// Per size: L(s) = PRTT(1,0,s)/2 - o_s - o_r - (s-1)G with the G of its
// segment.
#ifndef VERBSEMU_MODELS_LOGGP_LOGGP_FIT_H_
#define VERBSEMU_MODELS_LOGGP_LOGGP_FIT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "models/fit/nls.h"
#include "models/loggp/loggp_data.h"

namespace verbsemu::fit {

inline constexpr std::size_t kMinSegmentPoints = 3;

struct LoggpFitOptions {
  int max_segments = 3;       // >= 1
  double split_alpha = 0.05;  // in (0, 1): the family-wise rate of a split
};

// Estimate, standard error and 95% half width; NaN where not identified.
struct Estimate {
  double value = kNaN, se = kNaN, half95 = kNaN;
};

struct GapSegment {
  std::vector<std::size_t> sizes;  // indices into LoggpAnalysis::sizes
  double size_lo = 0, size_hi = 0;
  Estimate g, big_g;            // ns, ns/byte
  double bandwidth_gbs = kNaN;  // 1/G (bytes/ns = GB/s); NaN if G <= 0
  double r2 = kNaN;
  double rms_rel_residual = kNaN;  // sqrt(mean(((gap - fit)/gap)²))
};

// The best segmentation with a given number of segments.
struct SegmentationCandidate {
  int segments = 0;
  double wssr = kNaN;
  double aicc = kNaN;  // NaN: too few points for this many parameters
  // Nested F-test of these segments' best fit against the K-1 segments'
  // (2 more line parameters); NaN for K = 1.
  double split_p = kNaN;
};

struct LoggpSize {
  LoggpPoint point;
  bool in_fit = false;
  std::string excluded;          // why not in the gap fit; empty if in it
  int segment = -1;              // segment whose g, G apply; -1 if none
  bool nearest_segment = false;  // outside every segment's size range
  double fitted_gap = kNaN;      // g + (s-1)G of the segment
  double rel_residual = kNaN;    // (gap - fitted)/gap, sizes in the fit
  double latency = kNaN;         // L(s)
  std::vector<std::string> flags;
};

// NOLINTNEXTLINE(bugprone-exception-escape): as LoggpRun's.
struct LoggpAnalysis {
  LoggpStat stat = LoggpStat::kMedian;
  int n = 0;
  int max_segments = 0;
  double split_alpha = kNaN;
  std::size_t split_positions = 0;  // m: breakpoint places searched
  double split_level = kNaN;        // split_alpha / m: a split needs p below
  nlohmann::json params, device;
  std::vector<LoggpSize> sizes;  // one per point, in size order
  std::vector<GapSegment> segments;
  std::vector<SegmentationCandidate> candidates;
  std::string not_identified;  // why g and G are not; empty if they are
  bool identified() const { return not_identified.empty(); }
};

LoggpAnalysis AnalyzeLoggp(const LoggpRun& run,
                           const LoggpFitOptions& options = {});

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOGGP_LOGGP_FIT_H_
