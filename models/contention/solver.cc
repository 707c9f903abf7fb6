#include "models/contention/solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace verbsemu::contention {
namespace {

// A transfer counts as finished with this share of its bytes left
// (floating-point residue of the step that ends it).
constexpr double kFinished = 1e-9;

void CheckInput(const Graph& g, const std::vector<Transfer>& transfers,
                double alpha) {
  if (transfers.size() != g.edges.size())
    throw std::invalid_argument(std::to_string(transfers.size()) +
                                " transfers for " +
                                std::to_string(g.edges.size()) + " edges");
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw std::invalid_argument("alpha must be > 0");
  for (const Transfer& t : transfers) {
    if (!(t.bytes > 0) || !std::isfinite(t.bytes))
      throw std::invalid_argument("a transfer size must be > 0");
    if (!(t.start_s >= 0) || !std::isfinite(t.start_s))
      throw std::invalid_argument("a start time must be >= 0");
  }
}

// The model's penalties of the active edges, checked.
std::vector<double> ActivePenalties(const Graph& g,
                                    const std::vector<int>& active,
                                    const Penalties& penalties) {
  std::vector<double> rho = penalties(g.Subgraph(active));
  if (rho.size() != active.size())
    throw std::logic_error("penalty model returned a wrong count");
  for (double r : rho)
    if (!(r >= 1) || !std::isfinite(r))
      throw std::logic_error("penalty model returned " + std::to_string(r) +
                             " (< 1 or not finite)");
  return rho;
}

}  // namespace

Solution Solve(const Graph& g, const std::vector<Transfer>& transfers,
               double alpha, const Penalties& penalties) {
  CheckInput(g, transfers, alpha);
  const int n = g.edge_count();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rem(n);
  std::vector<bool> started(n, false), done(n, false);
  for (int i = 0; i < n; ++i) rem[i] = transfers[i].bytes;
  Solution sol{std::vector<double>(n, 0.0), {}};
  double t = 0;
  for (int finished = 0; finished < n;) {
    std::vector<int> active;
    double next_start = inf;
    for (int i = 0; i < n; ++i) {
      if (!started[i] && transfers[i].start_s <= t) started[i] = true;
      if (started[i] && !done[i]) active.push_back(i);
      if (!started[i]) next_start = std::min(next_start, transfers[i].start_s);
    }
    if (active.empty()) {  // idle until the next start
      t = next_start;
      continue;
    }
    const std::vector<double> rho = ActivePenalties(g, active, penalties);
    double dt = next_start - t;
    for (size_t k = 0; k < active.size(); ++k)
      dt = std::min(dt, rem[active[k]] * alpha * rho[k]);
    const double end = dt == next_start - t ? next_start : t + dt;
    Step step{t, end, {}};
    for (size_t k = 0; k < active.size(); ++k) {
      const int i = active[k];
      rem[i] -= dt / (alpha * rho[k]);
      if (rem[i] <= kFinished * transfers[i].bytes) {
        rem[i] = 0;
        done[i] = true;
        sol.end_s[i] = end;
        ++finished;
      }
      step.active.push_back({i, rho[k], rem[i]});
    }
    t = end;
    sol.steps.push_back(std::move(step));
  }
  return sol;
}

Solution SolveSynchronous(const Graph& g, double bytes, double alpha,
                          const Penalties& penalties) {
  return Solve(g, std::vector<Transfer>(g.edges.size(), {bytes, 0.0}), alpha,
               penalties);
}

}  // namespace verbsemu::contention
