#include "sweep/analysis.h"

#include <algorithm>
#include <cmath>

#include "stats/stats.h"

namespace verbsemu::sweep {
namespace {

constexpr double kHoldsWithin = 0.05;  // "degrades by more than 5%"

std::vector<PointResult> PerPoint(const Grid& grid,
                                  const std::vector<RunRecord>& records) {
  std::vector<PointResult> out;
  for (size_t p = 0; p < grid.points.size(); ++p) {
    PointResult pr;
    pr.point = grid.points[p];
    std::vector<double> values;
    for (const RunRecord& r : records) {
      if (r.program != ProgramName(Program::kApp) ||
          r.point != static_cast<int>(p))
        continue;
      ++pr.runs;
      if (r.valid) {
        values.push_back(*r.metric);
      } else {
        ++(r.metric ? pr.invalid : pr.failed);
        if (pr.first_reason.empty()) pr.first_reason = r.reason;
      }
    }
    pr.summary = Summarize(values, /*seed=*/p + 1);
    out.push_back(std::move(pr));
  }
  return out;
}

struct Points {
  std::vector<double> x, y;
  std::vector<int> block;
  std::vector<const RunRecord*> runs;
};

// Valid runs of `program` at the points `take` accepts, as (x, metric).
template <typename Take>
Points Select(const std::vector<RunRecord>& records, Program program,
              Take take) {
  Points p;
  for (const RunRecord& r : records) {
    double xv = 0;
    if (r.program == ProgramName(program) && r.valid && take(r, &xv)) {
      p.x.push_back(xv);
      p.y.push_back(*r.metric);
      p.block.push_back(r.block);
      p.runs.push_back(&r);
    }
  }
  return p;
}

void FlagNoisy(std::vector<PointResult>* points) {
  std::vector<double> cvs;
  for (PointResult& p : *points) {
    const Summary& s = p.summary;
    if (s.n < 2 || s.mean == 0) continue;
    p.cv = s.sd / std::fabs(s.mean);
    cvs.push_back(p.cv);
  }
  if (cvs.size() < 3) return;
  const double typical = stats::Median(cvs);
  for (PointResult& p : *points) {
    p.noisy = typical > 0 && p.cv > kNoisyFactor * typical;
  }
}

// A blocked fit's slope as a line with a standard error (its interval's
// half width over z), so that two of them make a ratio.
LineFit AsLine(const BlockedFit& f) {
  LineFit l;
  l.ok = f.ok;
  l.n = f.n;
  l.slope = f.slope;
  l.intercept = f.intercept;
  l.slope_ci = f.slope_ci;
  l.slope_se = (f.slope_ci.hi - f.slope_ci.lo) / (2 * 1.959964);
  return l;
}

void LatencyFits(const std::vector<RunRecord>& records, Analysis* a) {
  const auto at_full_bandwidth = [](const RunRecord& r, double* x) {
    *x = r.latency_ns / 1000;
    return r.bandwidth_share == 1;
  };
  const Points lat = Select(records, Program::kApp, at_full_bandwidth);
  a->latency_blocked = FitBlocked(lat.x, lat.y, lat.block);
  for (size_t i : a->latency_blocked.outliers) {
    const RunRecord& r = *lat.runs[i];
    a->set_aside.push_back(
        {r.run, r.block, r.latency, *r.metric,
         a->latency_blocked.residuals[i] / a->latency_blocked.scale});
  }
  a->latency = FitLine(lat.x, lat.y);
  a->latency_robust = TheilSen(lat.x, lat.y);
  const Points pp = Select(records, Program::kPingpong, at_full_bandwidth);
  a->pingpong = FitLine(pp.x, pp.y);
  a->pingpong_blocked = FitBlocked(pp.x, pp.y, pp.block);
  const LineFit headline = AsLine(a->latency_blocked);
  if (a->runtime_metric && headline.ok) {
    // s per µs of one-way delay, times 1e6: s per s.
    a->c_a_raw = headline.slope * 1e6;
    a->c_a_raw_ci = {headline.slope_ci.lo * 1e6, headline.slope_ci.hi * 1e6};
  }
  if (headline.ok && a->pingpong_blocked.ok) {
    a->c_a = SlopeRatio(headline, AsLine(a->pingpong_blocked));
  }
  const Points control = Select(records, Program::kControl, at_full_bandwidth);
  a->control_blocked = FitBlocked(control.x, control.y, control.block);
}

// The latency fits' runs again, against the delay the shim delivered.
void DeliveredFits(const std::vector<RunRecord>& records, Analysis* a) {
  bool reported = true;
  const Points asked = Select(records, Program::kApp,
                              [&reported](const RunRecord& r, double* x) {
                                *x = r.latency_ns / 1000;
                                if (r.bandwidth_share != 1) return false;
                                if (r.latency_ns > 0 && r.waits <= 0)
                                  reported = false;
                                return true;
                              });
  if (!reported) return;
  std::vector<double> all, own;
  for (const RunRecord* r : asked.runs) {
    all.push_back(r->wait_ns / 1000);
    own.push_back(r->wait_own_ns / 1000);
  }
  a->delivered = FitBlocked(asked.x, all, asked.block);
  a->delivered_own = FitBlocked(asked.x, own, asked.block);
  a->latency_delivered = FitBlocked(all, asked.y, asked.block);
  a->latency_delivered_own = FitBlocked(own, asked.y, asked.block);
}

void BandwidthHold(Analysis* a) {
  const PointResult* base = nullptr;
  std::vector<const PointResult*> shares;
  for (const PointResult& p : a->points) {
    if (p.point.latency_ns != 0 || !p.point.plain() || p.summary.n == 0) {
      continue;
    }
    if (p.point.baseline()) base = &p;
    if (p.point.bandwidth_share > 0) shares.push_back(&p);
  }
  if (base == nullptr || shares.size() < 2 || base->summary.median == 0) return;
  std::sort(shares.begin(), shares.end(), [](auto* l, auto* r) {
    return l->point.bandwidth_share > r->point.bandwidth_share;
  });
  for (const PointResult* p : shares) {
    const double change = p->summary.median / base->summary.median - 1;
    if (std::fabs(change) > kHoldsWithin) {
      a->first_beyond = p->point.bandwidth_share;
      a->beyond_change = change;
      return;
    }
    a->holds_down_to = p->point.bandwidth_share;
  }
}

void Tolerances(const std::vector<RunRecord>& records, Analysis* a) {
  double max_us = 0, min_share = 1;
  for (const PointResult& p : a->points) {
    if (p.summary.n == 0 || !p.point.plain()) continue;
    if (p.point.bandwidth_share == 1) {
      max_us = std::max(max_us, p.point.latency_ns / 1000);
    }
    if (p.point.latency_ns == 0 && p.point.bandwidth_share > 0) {
      min_share = std::min(min_share, p.point.bandwidth_share);
    }
  }
  a->latency_tolerance = LatencyTolerance(a->latency_blocked, max_us);
  if (min_share == 1) return;  // no bandwidth swept
  const Points bw =
      Select(records, Program::kApp, [](const RunRecord& r, double* x) {
        *x = r.bandwidth_share > 0 ? 1 / r.bandwidth_share - 1 : 0;
        return r.latency_ns == 0 && r.bandwidth_share > 0;
      });
  a->bandwidth_blocked = FitBlocked(bw.x, bw.y, bw.block);
  a->bandwidth_tolerance = BandwidthTolerance(a->bandwidth_blocked, min_share);
}

// The grid point of `r`; null for an index outside the grid.
const GridPoint* PointOf(const Grid& grid, const RunRecord& r) {
  if (r.point < 0 || static_cast<size_t>(r.point) >= grid.points.size()) {
    return nullptr;
  }
  return &grid.points[static_cast<size_t>(r.point)];
}

// The runs at points with no LogGP axis set: the latency/bandwidth plane.
std::vector<RunRecord> PlainRuns(const Grid& grid,
                                 const std::vector<RunRecord>& records) {
  std::vector<RunRecord> out;
  for (const RunRecord& r : records) {
    const GridPoint* p = PointOf(grid, r);
    if (p == nullptr || p->plain()) out.push_back(r);
  }
  return out;
}

// Each LogGP axis alone: the metric against it in µs, over the points at
// no latency, full bandwidth and no other such axis.
void DurationFits(const Grid& grid, const std::vector<RunRecord>& records,
                  Analysis* a) {
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    const Points pts = Select(
        records, Program::kApp, [&grid, i](const RunRecord& r, double* x) {
          const GridPoint* p = PointOf(grid, r);
          if (p == nullptr || p->latency_ns != 0 || p->bandwidth_share != 1) {
            return false;
          }
          for (size_t j = 0; j < kDurationAxisCount; ++j) {
            if (j != i && p->durations_ns[j] != 0) return false;
          }
          *x = p->durations_ns[i] / 1000;
          return true;
        });
    a->durations[i] = FitLine(pts.x, pts.y);
  }
}

}  // namespace

Analysis Analyze(const Grid& grid, const std::vector<RunRecord>& records,
                 const MetricLabel& label) {
  Analysis a;
  a.label = label;
  a.runtime_metric = label.wall_time;
  a.points = PerPoint(grid, records);
  for (const PointResult& p : a.points) {
    a.failed_runs += p.failed;
    a.invalid_runs += p.invalid;
    if (!p.valid()) a.all_valid = false;
  }
  FlagNoisy(&a.points);
  DurationFits(grid, records, &a);
  const std::vector<RunRecord> plain = PlainRuns(grid, records);
  LatencyFits(plain, &a);
  DeliveredFits(plain, &a);
  Points medians;
  for (const PointResult& p : a.points) {
    if (p.point.bandwidth_share != 1 || !p.point.plain() || p.summary.n == 0) {
      continue;
    }
    medians.x.push_back(p.point.latency_ns / 1000);
    medians.y.push_back(p.summary.median);
  }
  a.latency_medians = FitLine(medians.x, medians.y);
  const Points bw =
      Select(plain, Program::kApp, [](const RunRecord& r, double* x) {
        *x = r.bandwidth_share;
        return r.latency_ns == 0 && r.bandwidth_share > 0;
      });
  a.bandwidth = FitLine(bw.x, bw.y);
  BandwidthHold(&a);
  Tolerances(plain, &a);
  return a;
}

}  // namespace verbsemu::sweep
