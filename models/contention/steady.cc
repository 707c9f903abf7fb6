#include "models/contention/steady.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace verbsemu::contention {
namespace {

bool Recorded(const GraphRun& run) {
  return std::all_of(
      run.edges.begin(), run.edges.end(),
      [](const EdgeTiming& t) { return !t.completions_ns.empty(); });
}

bool AnyRecorded(const ContendData& d) {
  for (const MeasuredGraph& g : d.graphs)
    for (const GraphRun& run : g.runs)
      if (Recorded(run)) return true;
  return false;
}

// [lo, hi] less `trim` of it at each side.
std::pair<double, double> Trimmed(double lo, double hi, double trim) {
  const double cut = trim * (hi - lo);
  return {lo + cut, hi - cut};
}

// A lone edge's rate in each recorded run of the one-edge graphs.
Interval AloneRate(const ContendData& d, const SteadyOptions& o) {
  std::vector<double> rates;
  for (const MeasuredGraph& g : d.graphs) {
    if (g.graph.edge_count() != 1) continue;
    for (const GraphRun& run : g.runs) {
      const EdgeTiming& t = run.edges[0];
      if (t.completions_ns.empty()) continue;
      const auto [lo, hi] = Trimmed(static_cast<double>(t.send_start_ns),
                                    static_cast<double>(t.send_end_ns), o.trim);
      if (const auto rate =
              CompletionRate(t.completions_ns, d.params.wr_size,
                             g.edges[0].bytes, lo, hi, o.min_points))
        rates.push_back(*rate);
    }
  }
  return TInterval(rates);
}

// The penalty of each edge of graph `gi` in every recorded run.
void GraphPenalties(const ContendData& d, int gi, double alone,
                    const SteadyOptions& o, SteadyResult* out) {
  const MeasuredGraph& g = d.graphs[gi];
  const int n = g.graph.edge_count();
  std::vector<std::vector<double>> rho(n);
  std::vector<int> without(n, 0);
  for (const GraphRun& run : g.runs) {
    if (!Recorded(run)) continue;
    double lo = 0, hi = 0;
    for (int i = 0; i < n; ++i) {
      const EdgeTiming& t = run.edges[i];
      lo = std::max(lo, static_cast<double>(t.send_start_ns));
      hi = i == 0 ? static_cast<double>(t.send_end_ns)
                  : std::min(hi, static_cast<double>(t.send_end_ns));
    }
    const auto [from, to] = Trimmed(lo, hi, o.trim);
    for (int i = 0; i < n; ++i) {
      const auto rate =
          to > from
              ? CompletionRate(run.edges[i].completions_ns, d.params.wr_size,
                               g.edges[i].bytes, from, to, o.min_points)
              : std::nullopt;
      if (rate && *rate > 0) {
        rho[i].push_back(alone / *rate);
      } else {
        ++without[i];
      }
    }
  }
  for (int i = 0; i < n; ++i)
    if (!rho[i].empty() || without[i] > 0)
      out->penalties.push_back({gi, i, TInterval(rho[i]), without[i]});
}

}  // namespace

std::optional<double> CompletionRate(
    const std::vector<std::int64_t>& completions_ns, std::int64_t wr_size,
    std::int64_t bytes, double lo_ns, double hi_ns, int min_points) {
  if (wr_size <= 0) return std::nullopt;
  std::vector<std::pair<double, double>> points;  // (ns, bytes)
  for (std::size_t k = 0; k < completions_ns.size(); ++k) {
    const auto t = static_cast<double>(completions_ns[k]);
    if (t < lo_ns || t > hi_ns) continue;
    points.emplace_back(
        t, static_cast<double>(
               std::min(static_cast<std::int64_t>(k + 1) * wr_size, bytes)));
  }
  if (points.size() < static_cast<std::size_t>(std::max(min_points, 2)))
    return std::nullopt;
  double mt = 0, mb = 0;
  for (const auto& [t, b] : points) {
    mt += t;
    mb += b;
  }
  mt /= static_cast<double>(points.size());
  mb /= static_cast<double>(points.size());
  double tt = 0, tb = 0;
  for (const auto& [t, b] : points) {
    tt += (t - mt) * (t - mt);
    tb += (t - mt) * (b - mb);
  }
  if (!(tt > 0)) return std::nullopt;
  return tb / tt * 1e9;
}

SteadyResult SteadyPenalties(const ContendData& d, const SteadyOptions& o) {
  if (!(o.trim >= 0 && o.trim < 0.5) || o.min_points < 2)
    throw std::invalid_argument(
        "steady penalties need a trim in [0, 0.5) and at least 2 points");
  SteadyResult r;
  if (!AnyRecorded(d)) return r;
  if (d.params.wr_size <= 0) {
    r.notes.push_back("no steady penalties: the file does not say wr_size");
    return r;
  }
  r.alone_Bps = AloneRate(d, o);
  if (r.alone_Bps.n == 0) {
    r.notes.push_back(
        "no steady penalties: no one-edge graph (a>b) recorded its "
        "completions");
    return r;
  }
  for (std::size_t gi = 0; gi < d.graphs.size(); ++gi) {
    const MeasuredGraph& g = d.graphs[gi];
    if (g.graph.edge_count() < 2) continue;
    const bool together =
        std::all_of(g.edges.begin(), g.edges.end(),
                    [](const EdgePlan& e) { return e.start_offset_ns == 0; });
    if (!together) {
      r.notes.push_back(g.name +
                        ": no steady penalties (its edges start at "
                        "different times)");
      continue;
    }
    GraphPenalties(d, static_cast<int>(gi), r.alone_Bps.value, o, &r);
  }
  return r;
}

}  // namespace verbsemu::contention
