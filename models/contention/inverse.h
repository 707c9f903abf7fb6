// Penalties from measured static-synchronous graphs (every edge starts at 0
// with the same size), the paper's section 3.3: the measured end times and
// the penalties of the later steps' (residual) graphs give, by running the
// forward model backwards, the first step's penalty of every edge.
#ifndef VERBSEMU_MODELS_CONTENTION_INVERSE_H_
#define VERBSEMU_MODELS_CONTENTION_INVERSE_H_

#include <map>
#include <string>
#include <vector>

#include "models/contention/graph.h"
#include "models/contention/solver.h"

namespace verbsemu::contention {

struct Inversion {
  std::vector<double> rho1;         // per edge: penalty of the first step
  std::vector<double> step1_bytes;  // per edge: bytes moved in the first step
};

// Edges whose end times lie within rel_tol (relative) of the first of
// their group end together. `later` gives the penalties of each residual
// graph (the edges still running after a group ends). Throws
// std::invalid_argument for bad sizes or values, std::domain_error when the
// times leave an edge no bytes for the first step (inconsistent data).
Inversion Invert(const Graph& g, const std::vector<double>& times_s,
                 double bytes, double alpha, const Penalties& later,
                 double rel_tol = 1e-6);

// A set of measured static-synchronous graphs, by shape (canonical form).
// As Penalties, it gives a graph's first-step penalties inverted from the
// measured graph of the same shape, whose own residual graphs come from
// the set again (the paper's recursion), or from `fallback` when the set
// has no such shape. Not thread-safe (it memoizes).
class MeasuredShapes {
 public:
  MeasuredShapes(double bytes, double alpha, Penalties fallback,
                 double rel_tol = 1e-6);
  // Throws std::invalid_argument for a count mismatch or a graph too
  // symmetric to canonicalize; a shape added twice keeps the last.
  void Add(const Graph& g, const std::vector<double>& times_s);
  std::vector<double> operator()(const Graph& g) const;

 private:
  struct Entry {
    Graph graph;
    std::vector<double> times_s;
    std::vector<int> edge_order;  // canonical position -> edge
  };
  std::vector<double> CanonicalRho(const std::string& form) const;

  double bytes_, alpha_, rel_tol_;
  Penalties fallback_;
  std::map<std::string, Entry> shapes_;
  mutable std::map<std::string, std::vector<double>> memo_;
};

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_INVERSE_H_
