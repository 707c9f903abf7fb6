// The forward solver of the contention model (eqs. 1-3 of Martinasso &
// Mehaut): time advances in steps; a step ends when a transfer ends or
// starts; within a step every active transfer i moves bytes at 1/(alpha
// rho_i), rho from the penalty model on the graph of the active transfers
// (re-evaluated at once at every step: instant reconfiguration).
#ifndef VERBSEMU_MODELS_CONTENTION_SOLVER_H_
#define VERBSEMU_MODELS_CONTENTION_SOLVER_H_

#include <functional>
#include <vector>

#include "models/contention/graph.h"

namespace verbsemu::contention {

// Penalties of a static graph (a model's function, or measured ones).
using Penalties = std::function<std::vector<double>(const Graph&)>;

struct Transfer {
  double bytes = 0;    // > 0
  double start_s = 0;  // >= 0
};

struct StepEdge {
  int edge = 0;          // index in the solved graph
  double rho = 1;        // penalty during the step
  double remaining = 0;  // bytes left at the step's end
};

struct Step {
  double begin_s = 0, end_s = 0;
  std::vector<StepEdge> active;  // by edge index
};

struct Solution {
  std::vector<double> end_s;  // per edge: absolute end time
  std::vector<Step> steps;    // steps with at least one active transfer
};

// alpha: seconds per byte of a lone transfer. Throws std::invalid_argument
// for a transfer count that is not the edge count, a size <= 0, a start < 0
// or alpha <= 0 (any non-finite value included), std::logic_error when the
// model gives a penalty < 1 or not finite.
Solution Solve(const Graph& g, const std::vector<Transfer>& transfers,
               double alpha, const Penalties& penalties);

// All transfers start at 0 with `bytes` each (static-synchronous).
Solution SolveSynchronous(const Graph& g, double bytes, double alpha,
                          const Penalties& penalties);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_SOLVER_H_
