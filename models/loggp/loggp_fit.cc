#include "models/loggp/loggp_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "models/loggp/formulas.h"

namespace verbsemu::fit {
namespace {

namespace lg = verbsbench::loggp;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Weighted SSR per point below which a fit counts as exact: rounding
// differences between exact fits are not evidence for more segments.
constexpr double kExactWssrPerPoint = 1e-24;

// The sizes the gap fit may use: x = size, y = gap, w = 1/gap².
struct GapData {
  std::vector<std::size_t> index;  // into the analysis' sizes
  std::vector<double> x, y, w;
};

// Weighted SSR of the weighted least-squares line through points
// [first, last] (closed form, centred for conditioning).
double LineWssr(const GapData& d, std::size_t first, std::size_t last) {
  double sw = 0, mx = 0, my = 0;
  for (std::size_t i = first; i <= last; ++i) {
    sw += d.w[i];
    mx += d.w[i] * d.x[i];
    my += d.w[i] * d.y[i];
  }
  mx /= sw;
  my /= sw;
  double sxx = 0, sxy = 0;
  for (std::size_t i = first; i <= last; ++i) {
    sxx += d.w[i] * (d.x[i] - mx) * (d.x[i] - mx);
    sxy += d.w[i] * (d.x[i] - mx) * (d.y[i] - my);
  }
  const double slope = sxx > 0 ? sxy / sxx : 0;
  double wssr = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double r = d.y[i] - my - slope * (d.x[i] - mx);
    wssr += d.w[i] * r * r;
  }
  return wssr;
}

// For each number of segments K = 1..max_k, the least total weighted SSR
// of K contiguous segments of >= kMinSegmentPoints points (dynamic
// programming: for a fixed K the AICc is monotone in the total WSSR) and
// the segments' first points.
struct Splits {
  std::vector<double> wssr;                      // [K-1]; inf: impossible
  std::vector<std::vector<std::size_t>> starts;  // [K-1]
};

Splits BestSplits(const GapData& d, int max_k) {
  const std::size_t m = d.x.size(), p = kMinSegmentPoints;
  const auto ks = static_cast<std::size_t>(max_k);
  // cost[i * (m + 1) + j]: the line's WSSR over points [i, j), computed
  // once (O(m³) for the few dozen sizes of a run).
  std::vector<double> cost(m * (m + 1), kInf);
  for (std::size_t i = 0; i + p <= m; ++i) {
    for (std::size_t j = i + p; j <= m; ++j) {
      cost[i * (m + 1) + j] = LineWssr(d, i, j - 1);
    }
  }
  // best[k][j]: k+1 segments over points [0, j); from[k][j]: last start.
  std::vector<std::vector<double>> best(ks, std::vector<double>(m + 1, kInf));
  std::vector<std::vector<std::size_t>> from(
      ks, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t j = p; j <= m; ++j) best[0][j] = cost[j];
  for (std::size_t k = 1; k < ks; ++k) {
    for (std::size_t j = (k + 1) * p; j <= m; ++j) {
      for (std::size_t i = k * p; i + p <= j; ++i) {
        const double c = best[k - 1][i] + cost[i * (m + 1) + j];
        if (c < best[k][j]) best[k][j] = c, from[k][j] = i;
      }
    }
  }
  Splits out;
  for (std::size_t k = 0; k < ks; ++k) {
    out.wssr.push_back(best[k][m]);
    std::vector<std::size_t> starts;
    if (std::isfinite(best[k][m])) {
      std::size_t j = m;
      for (std::size_t kk = k + 1; kk-- > 0;) {
        const std::size_t start = kk == 0 ? 0 : from[kk][j];
        starts.insert(starts.begin(), start);
        j = start;
      }
    }
    out.starts.push_back(starts);
  }
  return out;
}

// The places one breakpoint can take with kMinSegmentPoints on each side.
// For K = 1 -> 2 these are exactly the places searched; for more segments
// the new breakpoint falls in one of the K segments, whose places add up
// to at most this (the old breakpoints move too, but a real break pins
// them), so alpha / m stays the Bonferroni level of the search.
std::size_t BreakpointPositions(std::size_t points) {
  const std::size_t p = kMinSegmentPoints;
  return points >= 2 * p ? points - 2 * p + 1 : 0;
}

// The number of segments: from K = 1 up, K+1 is taken while AICc falls
// and the extra line's F-test passes at split_level (the sequential test
// of Bai and Perron, 1998, with a Bonferroni level in place of their
// sup-F tables). Fills the candidates and the chosen segments' starts.
int ChooseSegments(const GapData& d, LoggpAnalysis& a,
                   std::vector<std::size_t>& starts) {
  const std::size_t m = d.x.size();
  // More segments than m / kMinSegmentPoints cannot be placed.
  const int max_k =
      std::min(a.max_segments, static_cast<int>(m / kMinSegmentPoints));
  const Splits splits = BestSplits(d, max_k);
  // Exact fits differ by rounding only: no evidence either way.
  const double floor = kExactWssrPerPoint * static_cast<double>(m);
  int chosen = 1;
  for (int k = 1; k <= max_k; ++k) {
    const double wssr = splits.wssr[k - 1];
    if (!std::isfinite(wssr)) break;  // too few points for k segments
    const auto params = static_cast<std::size_t>(3 * k - 1);
    SegmentationCandidate c{k, wssr, Aicc(std::max(wssr, floor), m, params)};
    if (k > 1) {
      const SegmentationCandidate& prev = a.candidates.back();
      const std::size_t lines = 2 * static_cast<std::size_t>(k);
      c.split_p = NestedFTest(std::max(prev.wssr, floor), lines - 2,
                              std::max(wssr, floor), lines, m)
                      .p_value;
      // NaN (an AICc or p not defined) never splits.
      if (chosen == k - 1 && c.aicc < prev.aicc && c.split_p < a.split_level) {
        chosen = k;
      }
    }
    a.candidates.push_back(c);
  }
  starts = splits.starts[chosen - 1];
  return chosen;
}

Estimate EstimateOf(const FitResult& f, std::size_t j) {
  if (!f.Identified(j)) return {f.params[j], kNaN, kNaN};
  return {f.params[j], f.se[j], f.HalfWidth95(j)};
}

// g and G of points [first, last] by FitNls (for its covariance).
GapSegment FitSegment(const GapData& d, std::size_t first, std::size_t last) {
  const Model line{
      [](double s, std::span<const double> p) {
        return lg::GapModel(p[0], p[1], s);
      },
      [](double s, std::span<const double>, std::span<double> grad) {
        grad[0] = 1;
        grad[1] = s - 1;
      }};
  const std::span<const double> x(d.x.data() + first, last - first + 1);
  const std::span<const double> y(d.y.data() + first, x.size());
  const std::span<const double> w(d.w.data() + first, x.size());
  // Start: the line through the segment's ends.
  const double slope = (y.back() - y.front()) / (x.back() - x.front());
  const FitResult f =
      FitNls(line, x, y, w, {y.front() - (x.front() - 1) * slope, slope});
  GapSegment seg;
  seg.sizes.assign(d.index.begin() + static_cast<std::ptrdiff_t>(first),
                   d.index.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  seg.size_lo = x.front();
  seg.size_hi = x.back();
  if (!f.ok()) return seg;
  seg.g = EstimateOf(f, 0);
  seg.big_g = EstimateOf(f, 1);
  if (seg.big_g.value > 0) seg.bandwidth_gbs = 1 / seg.big_g.value;
  seg.r2 = f.r2;
  seg.rms_rel_residual = std::sqrt(f.wssr / static_cast<double>(x.size()));
  return seg;
}

// The segment whose G applies to a size: the one holding it, else the
// nearest on a log scale (sizes grow geometrically).
int SegmentFor(const std::vector<GapSegment>& segs, double size,
               bool& nearest) {
  int best = -1;
  double best_dist = kInf;
  for (std::size_t k = 0; k < segs.size(); ++k) {
    if (size >= segs[k].size_lo && size <= segs[k].size_hi) {
      nearest = false;
      return static_cast<int>(k);
    }
    const double edge =
        size < segs[k].size_lo ? segs[k].size_lo : segs[k].size_hi;
    const double dist = std::fabs(std::log((size + 1) / (edge + 1)));
    if (dist < best_dist) best_dist = dist, best = static_cast<int>(k);
  }
  nearest = best >= 0;
  return best;
}

// Exclusions and the flags that do not need the fit.
GapData Classify(std::vector<LoggpSize>& sizes) {
  GapData d;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    LoggpSize& s = sizes[i];
    const LoggpPoint& p = s.point;
    if (p.sender_bound) {
      s.excluded =
          "sender-bound: gap within 10% of o_s bounds g+(s-1)G "
          "from above only";
      s.flags.emplace_back("sender_bound");
    } else if (!(p.gap > 0)) {
      s.excluded = "gap <= 0: the train measured no time per message";
      s.flags.emplace_back("gap<=0");
    } else {
      s.in_fit = true;
      d.index.push_back(i);
      d.x.push_back(p.size);
      d.y.push_back(p.gap);
    }
    if (!p.delay_covers_gap) s.flags.emplace_back("o_s not valid: d < gap");
    if (p.o_s < 0) s.flags.emplace_back("o_s<0");
  }
  d.w = RelativeWeights(d.y);
  return d;
}

// Fitted gap, residual, L(s) and their flags, from the segments.
void ApplySegments(LoggpAnalysis& a) {
  for (LoggpSize& s : a.sizes) {
    const LoggpPoint& p = s.point;
    s.segment = SegmentFor(a.segments, p.size, s.nearest_segment);
    if (s.segment < 0) continue;
    const GapSegment& seg = a.segments[static_cast<std::size_t>(s.segment)];
    s.fitted_gap = lg::GapModel(seg.g.value, seg.big_g.value, p.size);
    if (s.in_fit) s.rel_residual = (p.gap - s.fitted_gap) / p.gap;
    s.latency = lg::Latency(p.half_rtt, p.o_s, p.o_r, p.size, seg.big_g.value);
    if (s.nearest_segment) {
      s.flags.push_back("G of nearest segment " +
                        std::to_string(s.segment + 1));
    }
    if (s.latency < 0) s.flags.emplace_back("L<0");
  }
}

}  // namespace

LoggpAnalysis AnalyzeLoggp(const LoggpRun& run,
                           const LoggpFitOptions& options) {
  LoggpAnalysis a;
  a.stat = run.stat;
  a.n = run.n;
  a.max_segments = std::max(1, options.max_segments);
  a.split_alpha = options.split_alpha;
  a.params = run.params;
  a.device = run.device;
  for (const LoggpPoint& p : run.points) {
    LoggpSize size;
    size.point = p;
    a.sizes.push_back(std::move(size));
  }
  const GapData d = Classify(a.sizes);
  if (d.x.size() < kMinSegmentPoints) {
    a.not_identified = "g and G not identified: " + std::to_string(d.x.size()) +
                       " of " + std::to_string(a.sizes.size()) +
                       " sizes have a gap not paced by the sender, " +
                       std::to_string(kMinSegmentPoints) + " needed";
    return a;
  }
  a.split_positions = BreakpointPositions(d.x.size());
  if (a.split_positions > 0) {
    a.split_level = a.split_alpha / static_cast<double>(a.split_positions);
  }
  std::vector<std::size_t> starts;
  ChooseSegments(d, a, starts);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t last =
        k + 1 < starts.size() ? starts[k + 1] - 1 : d.x.size() - 1;
    a.segments.push_back(FitSegment(d, starts[k], last));
  }
  ApplySegments(a);
  return a;
}

}  // namespace verbsemu::fit
