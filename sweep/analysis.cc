#include "sweep/analysis.h"

#include <algorithm>
#include <cmath>

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
      if (r.program != "app" || r.point != static_cast<int>(p)) continue;
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
};

// Valid runs of `program` at the points `take` accepts, as (x, metric).
template <typename Take>
Points Select(const std::vector<RunRecord>& records, const std::string& program,
              Take take) {
  Points p;
  for (const RunRecord& r : records) {
    double xv = 0;
    if (r.program == program && r.valid && take(r, &xv)) {
      p.x.push_back(xv);
      p.y.push_back(*r.metric);
    }
  }
  return p;
}

void BandwidthHold(Analysis* a) {
  const PointResult* base = nullptr;
  std::vector<const PointResult*> shares;
  for (const PointResult& p : a->points) {
    if (p.point.latency_ns != 0 || p.summary.n == 0) continue;
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

}  // namespace

Analysis Analyze(const Grid& grid, const std::vector<RunRecord>& records,
                 bool runtime_metric) {
  Analysis a;
  a.runtime_metric = runtime_metric;
  a.points = PerPoint(grid, records);
  for (const PointResult& p : a.points) {
    a.failed_runs += p.failed;
    a.invalid_runs += p.invalid;
    if (!p.valid()) a.all_valid = false;
  }
  const auto at_full_bandwidth = [](const RunRecord& r, double* x) {
    *x = r.latency_ns / 1000;
    return r.bandwidth_share == 1;
  };
  const Points lat = Select(records, "app", at_full_bandwidth);
  a.latency = FitLine(lat.x, lat.y);
  a.latency_robust = TheilSen(lat.x, lat.y);
  Points medians;
  for (const PointResult& p : a.points) {
    if (p.point.bandwidth_share != 1 || p.summary.n == 0) continue;
    medians.x.push_back(p.point.latency_ns / 1000);
    medians.y.push_back(p.summary.median);
  }
  a.latency_medians = FitLine(medians.x, medians.y);
  const Points pp = Select(records, "pingpong", at_full_bandwidth);
  a.pingpong = FitLine(pp.x, pp.y);
  if (runtime_metric && a.latency.ok) {
    // s per µs of one-way delay, times 1e6: s per s.
    a.c_a_raw = a.latency.slope * 1e6;
    a.c_a_raw_ci = {a.latency.slope_ci.lo * 1e6, a.latency.slope_ci.hi * 1e6};
  }
  if (a.latency.ok && a.pingpong.ok) {
    a.c_a = SlopeRatio(a.latency, a.pingpong);
  }
  const Points bw = Select(records, "app", [](const RunRecord& r, double* x) {
    *x = r.bandwidth_share;
    return r.latency_ns == 0 && r.bandwidth_share > 0;
  });
  a.bandwidth = FitLine(bw.x, bw.y);
  BandwidthHold(&a);
  return a;
}

}  // namespace verbsemu::sweep
