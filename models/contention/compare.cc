#include "models/contention/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "models/contention/fit.h"
#include "stats/stats.h"

namespace verbsemu::contention {
namespace {

// What makes two measured graphs the same experiment.
using Key = std::tuple<std::string, std::string, std::vector<std::int64_t>>;

Key KeyOf(const MeasuredGraph& g) {
  std::vector<std::int64_t> plan;
  for (const EdgePlan& e : g.edges) {
    plan.push_back(e.bytes);
    plan.push_back(e.start_offset_ns);
  }
  return {g.name, g.graph.ToString(), std::move(plan)};
}

double MedianSeconds(const MeasuredGraph& g, int edge) {
  std::vector<double> t;
  for (std::size_t r = 0; r < g.runs.size(); ++r)
    t.push_back(MeasuredSeconds(g, static_cast<int>(r), edge));
  return stats::Median(t);
}

}  // namespace

Comparison Compare(const ContendData& base, const ContendData& other) {
  // Each key's graphs in `base`, in file order, consumed as matched.
  std::map<Key, std::vector<int>> unmatched;
  for (int i = static_cast<int>(base.graphs.size()) - 1; i >= 0; --i)
    unmatched[KeyOf(base.graphs[i])].push_back(i);
  Comparison c;
  for (std::size_t j = 0; j < other.graphs.size(); ++j) {
    const MeasuredGraph& g = other.graphs[j];
    auto it = unmatched.find(KeyOf(g));
    if (it == unmatched.end() || it->second.empty() || g.runs.empty()) {
      ++c.only_other;
      continue;
    }
    const int bi = it->second.back();
    it->second.pop_back();
    const MeasuredGraph& b = base.graphs[bi];
    if (b.runs.empty()) {  // measured in neither, in effect
      ++c.only_base;
      ++c.only_other;
      continue;
    }
    for (int e = 0; e < g.graph.edge_count(); ++e) {
      EdgeRatio r{bi, static_cast<int>(j), e, MedianSeconds(b, e),
                  MedianSeconds(g, e)};
      r.ratio = r.base_s > 0 ? r.other_s / r.base_s : 0;
      c.edges.push_back(r);
    }
  }
  for (const auto& [key, left] : unmatched)
    c.only_base += static_cast<int>(left.size());
  if (!c.edges.empty()) {
    std::vector<double> ratios;
    for (const EdgeRatio& r : c.edges) ratios.push_back(r.ratio);
    c.median = stats::Median(ratios);
    c.min = *std::min_element(ratios.begin(), ratios.end());
    c.max = *std::max_element(ratios.begin(), ratios.end());
  }
  return c;
}

std::vector<EdgeRatio> Outside(const Comparison& c, double expect,
                               double tolerance) {
  std::vector<EdgeRatio> out;
  for (const EdgeRatio& r : c.edges)
    if (!(std::abs(r.ratio - expect) <= tolerance)) out.push_back(r);
  std::sort(out.begin(), out.end(),
            [expect](const EdgeRatio& a, const EdgeRatio& b) {
              return std::abs(a.ratio - expect) > std::abs(b.ratio - expect);
            });
  return out;
}

}  // namespace verbsemu::contention
