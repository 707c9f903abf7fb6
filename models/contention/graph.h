// The contention graph of Martinasso & Mehaut (Euro-Par 2011): vertices are
// nodes, each edge one transfer src -> dst. Parallel edges are allowed,
// self-loops are not (intra-node traffic is not network contention).
// Text form: "a>b,a>c,d>b" (labels [A-Za-z0-9_.-], spaces ignored).
#ifndef VERBSEMU_MODELS_CONTENTION_GRAPH_H_
#define VERBSEMU_MODELS_CONTENTION_GRAPH_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::contention {

struct Edge {
  int src = 0;
  int dst = 0;
};

struct Graph {
  std::vector<std::string> labels;  // vertex index -> label
  std::vector<Edge> edges;          // edge index -> endpoints

  int vertex_count() const { return static_cast<int>(labels.size()); }
  int edge_count() const { return static_cast<int>(edges.size()); }
  // Out- and in-degree of every vertex (counting parallel edges).
  std::vector<int> OutDegrees() const;
  std::vector<int> InDegrees() const;
  // The graph of the listed edges (same vertices), in the listed order.
  Graph Subgraph(const std::vector<int>& edge_ids) const;
  // "a>b,a>c" in edge order.
  std::string ToString() const;
};

// Parser limits (the paper's graphs have at most 8 edges per node).
inline constexpr std::size_t kMaxEdges = 64;
inline constexpr std::size_t kMaxLabel = 32;

// Parses "a>b,a>c". On failure returns nullopt and says why in *why.
std::optional<Graph> ParseGraph(std::string_view text, std::string* why);

// The canonical form: vertices relabelled 0..V-1 so that isomorphic graphs
// print the same; `form` is the relabelled edge list, sorted ("0>1,0>2").
// edge_order[k] is the index in the input of the canonical form's k-th edge.
struct Canonical {
  std::string form;
  std::vector<int> edge_order;
};

// Canonical labelling by colour refinement on degrees, then the least edge
// list over the relabellings the colours leave open. nullopt (and *why) for
// a graph too symmetric to enumerate (more than kMaxRelabellings).
inline constexpr long kMaxRelabellings = 100'000;
std::optional<Canonical> Canonicalize(const Graph& g, std::string* why);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_GRAPH_H_
