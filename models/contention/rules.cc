#include "models/contention/rules.h"

#include <algorithm>

namespace verbsemu::contention {
namespace {

enum class Kind { kA, kB, kC };

struct Context {
  const Graph& g;
  std::vector<int> out, in;
  std::vector<std::vector<int>>
      competitors;  // per edge: other sources' edges into its dst

  explicit Context(const Graph& graph)
      : g(graph),
        out(graph.OutDegrees()),
        in(graph.InDegrees()),
        competitors(graph.edges.size()) {
    for (int i = 0; i < g.edge_count(); ++i)
      for (int j = 0; j < g.edge_count(); ++j)
        if (g.edges[j].dst == g.edges[i].dst &&
            g.edges[j].src != g.edges[i].src)
          competitors[i].push_back(j);
  }

  int SrcOut(int edge) const { return out[g.edges[edge].src]; }

  Kind KindOf(int i) const {
    const auto& c = competitors[i];
    const int s_out = SrcOut(i);
    if (c.empty()) return Kind::kA;
    const bool balanced = std::all_of(
        c.begin(), c.end(), [&](int j) { return SrcOut(j) == s_out; });
    if (in[g.edges[i].dst] <= s_out && balanced) return Kind::kA;
    const bool nic_limited =
        std::all_of(c.begin(), c.end(), [&](int j) { return SrcOut(j) > 1; });
    if (s_out == 1 && nic_limited) return Kind::kB;
    return Kind::kC;
  }

  // Sum over the competitors of edge i of 1 / delta+(their source).
  double IncomingShare(int i) const {
    double k = 0;
    for (int j : competitors[i]) k += 1.0 / SrcOut(j);
    return k;
  }

  // Rule (c), node level: the incoming shares of all edges of s.
  double NodeShare(int s) const {
    double k = 0;
    for (int i = 0; i < g.edge_count(); ++i)
      if (g.edges[i].src == s) k += IncomingShare(i);
    return k;
  }
};

}  // namespace

std::vector<double> Mm2011Penalties(const Graph& g, RuleB rule_b,
                                    RuleWeights w) {
  const Context ctx(g);
  const int n = g.edge_count();
  std::vector<Kind> kind(n);
  for (int i = 0; i < n; ++i) kind[i] = ctx.KindOf(i);
  // A (b) edge's source has out-degree 1: every other source is resolved
  // by (4) with (a) and (c) alone.
  std::vector<bool> source_has_c(g.labels.size(), false);
  for (int i = 0; i < n; ++i)
    if (kind[i] == Kind::kC) source_has_c[g.edges[i].src] = true;
  std::vector<double> rho(n, 1.0);
  for (int i = 0; i < n; ++i) {
    if (kind[i] == Kind::kB) continue;
    const int s = g.edges[i].src;
    rho[i] = ctx.out[s] + (source_has_c[s] ? w.c * ctx.NodeShare(s) : 0.0);
  }
  for (int i = 0; i < n; ++i) {
    if (kind[i] != Kind::kB) continue;
    double worst = 0;  // competitors' sources have out-degree > 1: >= 2
    for (int j : ctx.competitors[i]) {
      const double r = rule_b == RuleB::kNode
                           ? rho[j]
                           : ctx.SrcOut(j) + w.c * ctx.IncomingShare(j);
      worst = std::max(worst, r);
    }
    rho[i] = 1.0 + w.b / (worst - 1.0);
  }
  return rho;
}

}  // namespace verbsemu::contention
