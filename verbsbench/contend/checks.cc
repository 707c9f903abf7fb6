#include "verbsbench/contend/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "verbsbench/contend/summary.h"

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

std::string Format(const char* fmt, auto... args) {
  char line[512];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

// The coefficient of variation of the one-edge graph's T over its runs.
std::optional<double> Cv(const MeasuredGraph& g) {
  if (g.runs.size() < 2) return std::nullopt;
  double sum = 0, sq = 0;
  for (const mc::GraphRun& r : g.runs) {
    const auto t = static_cast<double>(r.edges[0].recv_end_ns -
                                       g.edges[0].start_offset_ns);
    sum += t;
    sq += t * t;
  }
  const double n = static_cast<double>(g.runs.size());
  const double mean = sum / n;
  const double var = std::max(0.0, (sq - n * mean * mean) / (n - 1));
  return mean > 0 ? std::optional<double>(std::sqrt(var) / mean) : std::nullopt;
}

void CheckSpread(const ContendData& d, const CheckLimits& l,
                 std::vector<std::string>* out) {
  for (const MeasuredGraph& g : d.graphs) {
    if (g.edges.size() != 1) continue;
    const auto cv = Cv(g);
    if (cv && *cv > l.max_cv) {
      out->push_back(Format(
          "%s: T varies by %.1f%% (coefficient of variation) over %zu runs, "
          "over %.0f%%: T_ref and every T/T_ref are that uncertain (more "
          "--reps, larger --size, or a quieter fabric)",
          g.name.c_str(), 100 * *cv, g.runs.size(), 100 * l.max_cv));
    }
  }
}

// What a two-edge graph would show if it were not a penalty of 1: a
// duplex (a>b,b>a) the fabric's full duplex, two disjoint pairs (a>b,c>d)
// its being non-blocking; nullptr for any other graph.
const char* PairKind(const mc::Graph& g) {
  if (g.edges.size() != 2) return nullptr;
  const mc::Edge& x = g.edges[0];
  const mc::Edge& y = g.edges[1];
  if (x.src == y.dst && x.dst == y.src) return "full duplex";
  const bool disjoint =
      x.src != y.src && x.src != y.dst && x.dst != y.src && x.dst != y.dst;
  return disjoint ? "non-blocking" : nullptr;
}

// The duplex and the independent pairs: every edge's
// median T/T_ref within the tolerance of 1.
void CheckPairs(const ContendData& d, const CheckLimits& l,
                bool t_ref_uncertain, std::vector<std::string>* out) {
  for (const EdgeRow& row : Summarize(d)) {
    if (!row.over_ref || std::fabs(*row.over_ref - 1) <= l.rho_tolerance)
      continue;
    const auto g = std::find_if(
        d.graphs.begin(), d.graphs.end(),
        [&](const MeasuredGraph& m) { return m.name == row.graph; });
    if (g == d.graphs.end() || !g->StaticSynchronous()) continue;
    const char* what = PairKind(g->graph);
    if (what == nullptr) continue;
    out->push_back(Format(
        "%s: %s took %.3f of T_ref, not 1 within %.0f%%: the fabric is not "
        "%s between ranks %d and %d, and every penalty measured there "
        "includes that%s",
        row.graph.c_str(), row.transfer.c_str(), *row.over_ref,
        100 * l.rho_tolerance, what,
        g->vertex_rank[g->graph.edges[row.edge].src],
        g->vertex_rank[g->graph.edges[row.edge].dst],
        t_ref_uncertain ? " (or T_ref is off: see its spread above)" : ""));
  }
}

void CheckStarts(const ContendData& d, const CheckLimits& l,
                 std::vector<std::string>* out) {
  const std::optional<double> alpha = Alpha(d);
  if (!alpha || *alpha <= 0) return;
  for (const MeasuredGraph& g : d.graphs) {
    int late = 0, all = 0;
    double worst_ns = 0;
    for (const mc::GraphRun& r : g.runs) {
      for (size_t e = 0; e < g.edges.size() && e < r.edges.size(); ++e) {
        const double lateness = static_cast<double>(r.edges[e].send_start_ns -
                                                    g.edges[e].start_offset_ns);
        const double t_ref_ns =
            *alpha * static_cast<double>(g.edges[e].bytes) * 1e9;
        ++all;
        if (lateness > l.max_late_share * t_ref_ns) {
          ++late;
          worst_ns = std::max(worst_ns, lateness);
        }
      }
    }
    if (late > 0) {
      out->push_back(Format(
          "%s: %d of %d edge starts came after their planned start by more "
          "than %.1f%% of T_ref (the latest %.1f us): the graph did not run "
          "as planned there (a larger --lead, --wait yield, or fewer ranks "
          "per core)",
          g.name.c_str(), late, all, 100 * l.max_late_share, worst_ns / 1e3));
    }
  }
}

}  // namespace

std::vector<std::string> Check(const ContendData& d, const CheckLimits& l) {
  std::vector<std::string> out;
  CheckSpread(d, l, &out);
  CheckPairs(d, l, !out.empty(), &out);
  CheckStarts(d, l, &out);
  return out;
}

}  // namespace verbsbench::contend
