// The graphs `verbsbench contend` measures (docs/verbsbench.md, "contend"):
// graphs given as text, "[NAME:] a>b[:SIZE][@START],a>c,...", and the
// built-in sets: calibrate, shapes:E, mm2011 (the paper's Figs. 2-4),
// random:N:E1-E2; with --closure, the residual graphs an inversion needs.
// Vertex v of a graph (labels in order of first appearance) runs on rank v.
#ifndef VERBSBENCH_CONTEND_GRAPH_SET_H_
#define VERBSBENCH_CONTEND_GRAPH_SET_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/contention/contend_data.h"
#include "models/contention/graph.h"

namespace verbsbench::contend {

using verbsemu::contention::EdgePlan;
using verbsemu::contention::Graph;

struct PlannedGraph {
  std::string name;
  Graph graph;
  std::vector<EdgePlan> edges;  // per edge: bytes and planned start
  // Every edge starts at 0 with the same size.
  bool StaticSynchronous() const;
};

struct SetOptions {
  int ranks = 2;                     // vertices available
  std::int64_t bytes = 4 << 20;      // per edge unless the edge says
  std::uint64_t seed = 1;            // of random:
  int max_degree = 3;                // random: out- and in-degree bound
  std::int64_t max_bytes = 1 << 30;  // largest edge accepted
};

// Largest E of shapes:E (1 + 6 + 24 shapes up to 3 edges).
inline constexpr int kMaxShapeEdges = 3;

// One --graph argument: a built-in set's name or one graph. A set's graphs
// that need more vertices than o.ranks are left out and counted in
// *left_out; a graph given as text that does is refused. Throws
// std::invalid_argument with one line.
std::vector<PlannedGraph> ExpandGraphs(const std::string& spec,
                                       const SetOptions& o, int* left_out);

// Every spec in order (none: calibrate), then with `closure` the residual
// graphs (WithClosure). Throws std::invalid_argument with one line, also
// when no graph fits in o.ranks.
std::vector<PlannedGraph> ExpandAll(const std::vector<std::string>& specs,
                                    const SetOptions& o, bool closure,
                                    int* left_out);

// "[NAME:] a>b:1MiB@2ms,a>c": NAME defaults to the edge list. Throws
// std::invalid_argument with one line.
PlannedGraph ParsePlannedGraph(const std::string& text, const SetOptions& o);

// Every loop-free multigraph with 1..max_edges edges and no isolated vertex,
// one per isomorphism class (canonical form), labelled a, b, ... in the
// canonical order; by edge count, then canonical form.
std::vector<Graph> Shapes(int max_edges);

// `count` random graphs of `edges` edges on at most `vertices` vertices,
// no self-loop, every vertex's out- and in-degree at most max_degree.
std::vector<Graph> RandomGraphs(int count, int edges, int vertices,
                                int max_degree, std::mt19937_64& rng);

// The graphs, then the residual graphs (the edges still running after each
// group of edges that end together, as mm2011-node predicts the order) of
// every static-synchronous graph, when no graph of the set has their shape.
std::vector<PlannedGraph> WithClosure(std::vector<PlannedGraph> graphs);

}  // namespace verbsbench::contend

#endif  // VERBSBENCH_CONTEND_GRAPH_SET_H_
