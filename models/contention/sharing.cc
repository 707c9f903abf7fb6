#include "models/contention/sharing.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <tuple>

namespace verbsemu::contention {

std::vector<double> MaxMinPenalties(const Graph& g) {
  const int n = g.edge_count(), v = g.vertex_count();
  // Resources: egress of vertex x is x, ingress of x is v + x.
  std::vector<double> left(2 * static_cast<size_t>(v), 1.0);
  std::vector<double> rate(n, 0.0);
  std::vector<bool> fixed(n, false);
  auto uses = [&](int i, int r) {
    return g.edges[i].src == r || v + g.edges[i].dst == r;
  };
  for (int remaining = n; remaining > 0;) {
    double share = std::numeric_limits<double>::infinity();
    int bottleneck = -1;
    for (int r = 0; r < 2 * v; ++r) {
      int users = 0;
      for (int i = 0; i < n; ++i) users += !fixed[i] && uses(i, r);
      if (users > 0 && left[r] / users < share) {
        share = left[r] / users;
        bottleneck = r;
      }
    }
    for (int i = 0; i < n; ++i) {
      if (fixed[i] || !uses(i, bottleneck)) continue;
      rate[i] = share;
      fixed[i] = true;
      --remaining;
      left[g.edges[i].src] -= share;
      left[v + g.edges[i].dst] -= share;
    }
  }
  std::vector<double> rho(n);
  for (int i = 0; i < n; ++i) rho[i] = 1.0 / rate[i];
  return rho;
}

std::vector<double> IbHolPenalties(const Graph& g, double horizon) {
  const int n = g.edge_count();
  // Sources in order of first appearance, each with its edges in order.
  std::vector<int> sources;
  std::map<int, std::vector<int>> flows;
  for (int i = 0; i < n; ++i) {
    const int s = g.edges[i].src;
    if (flows[s].empty()) sources.push_back(s);
    flows[s].push_back(i);
  }
  std::map<int, long> turn;  // per source: round-robin count
  std::vector<double> ingress_free(g.labels.size(), 0.0);
  std::vector<long> delivered(n, 0);
  // (time the NIC is ready, arrival order, source): ties first come first.
  using Ready = std::tuple<double, long, int>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  long order = 0;
  for (int s : sources) ready.emplace(0.0, order++, s);
  while (!ready.empty()) {
    const auto [t, unused, s] = ready.top();
    ready.pop();
    if (t > horizon) break;
    const auto& f = flows[s];
    const int i = f[turn[s]++ % static_cast<long>(f.size())];
    const int d = g.edges[i].dst;
    const double done = std::max(t, ingress_free[d]) + 1.0;
    ingress_free[d] = done;
    if (done <= horizon) ++delivered[i];
    ready.emplace(done, order++, s);
  }
  std::vector<double> rho(n);
  for (int i = 0; i < n; ++i)
    rho[i] =
        horizon / std::max<double>(static_cast<double>(delivered[i]), 1e-9);
  return rho;
}

}  // namespace verbsemu::contention
