#include "models/contention/graph.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <utility>

namespace verbsemu::contention {
namespace {

bool IsLabelChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '-';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Checks one vertex label; returns its index in g (adding it if new).
std::optional<int> Vertex(std::string_view raw, Graph& g, std::string* why) {
  const std::string_view label = Trim(raw);
  if (label.empty()) {
    *why = "empty vertex label";
    return std::nullopt;
  }
  if (label.size() > kMaxLabel) {
    *why = "vertex label longer than " + std::to_string(kMaxLabel);
    return std::nullopt;
  }
  if (!std::all_of(label.begin(), label.end(), IsLabelChar)) {
    *why = "vertex label '" + std::string(label) +
           "' has a character outside [A-Za-z0-9_.-]";
    return std::nullopt;
  }
  const auto it = std::find(g.labels.begin(), g.labels.end(), label);
  if (it != g.labels.end()) return static_cast<int>(it - g.labels.begin());
  g.labels.emplace_back(label);
  return g.vertex_count() - 1;
}

bool ParseEdge(std::string_view item, Graph& g, std::string* why) {
  const size_t gt = item.find('>');
  if (gt == std::string_view::npos) {
    *why = "edge '" + std::string(Trim(item)) + "' is not SRC>DST";
    return false;
  }
  const auto src = Vertex(item.substr(0, gt), g, why);
  if (!src) return false;
  const auto dst = Vertex(item.substr(gt + 1), g, why);
  if (!dst) return false;
  if (*src == *dst) {
    *why = "edge '" + std::string(Trim(item)) + "' is a self-loop";
    return false;
  }
  g.edges.push_back({*src, *dst});
  return true;
}

// Colour refinement: vertices of equal colour have equal degrees and equal
// multisets of neighbour colours. Colours are ranks of invariant
// signatures, so isomorphic graphs get corresponding colours.
std::vector<int> RefineColours(const Graph& g) {
  using Sig = std::tuple<int, std::vector<int>, std::vector<int>>;
  const auto out = g.OutDegrees(), in = g.InDegrees();
  std::vector<int> colour(g.labels.size());
  // Senders first (more out-edges, then fewer in-edges), receivers last.
  for (size_t v = 0; v < colour.size(); ++v)
    colour[v] = -(out[v] * (static_cast<int>(kMaxEdges) + 1)) + in[v];
  for (int round = 0; round <= g.vertex_count(); ++round) {
    std::vector<Sig> sig(colour.size());
    for (size_t v = 0; v < colour.size(); ++v) std::get<0>(sig[v]) = colour[v];
    for (const Edge& e : g.edges) {
      std::get<1>(sig[e.src]).push_back(colour[e.dst]);
      std::get<2>(sig[e.dst]).push_back(colour[e.src]);
    }
    std::map<Sig, int> rank;
    for (auto& s : sig) {
      std::sort(std::get<1>(s).begin(), std::get<1>(s).end());
      std::sort(std::get<2>(s).begin(), std::get<2>(s).end());
      rank.emplace(s, 0);
    }
    int next = 0;
    for (auto& [s, r] : rank) r = next++;
    std::vector<int> refined(colour.size());
    for (size_t v = 0; v < colour.size(); ++v) refined[v] = rank[sig[v]];
    const bool stable = refined == colour;
    colour = std::move(refined);
    if (stable) break;
  }
  return colour;
}

// Advances each class to its next permutation, odometer style; false after
// the last combination.
bool NextRelabelling(std::vector<std::vector<int>>& classes) {
  for (auto& c : classes)
    if (std::next_permutation(c.begin(), c.end())) return true;
  return false;
}

}  // namespace

std::vector<int> Graph::OutDegrees() const {
  std::vector<int> d(labels.size(), 0);
  for (const Edge& e : edges) ++d[e.src];
  return d;
}

std::vector<int> Graph::InDegrees() const {
  std::vector<int> d(labels.size(), 0);
  for (const Edge& e : edges) ++d[e.dst];
  return d;
}

Graph Graph::Subgraph(const std::vector<int>& edge_ids) const {
  Graph sub{labels, {}};
  for (int id : edge_ids) sub.edges.push_back(edges.at(id));
  return sub;
}

std::string Graph::ToString() const {
  std::string s;
  for (const Edge& e : edges) {
    if (!s.empty()) s += ',';
    s += labels[e.src] + '>' + labels[e.dst];
  }
  return s;
}

std::optional<Graph> ParseGraph(std::string_view text, std::string* why) {
  Graph g;
  if (Trim(text).empty()) {
    *why = "empty graph: give edges as SRC>DST,SRC>DST";
    return std::nullopt;
  }
  while (true) {
    const size_t comma = text.find(',');
    if (g.edges.size() == kMaxEdges) {
      *why = "more than " + std::to_string(kMaxEdges) + " edges";
      return std::nullopt;
    }
    if (!ParseEdge(text.substr(0, comma), g, why)) return std::nullopt;
    if (comma == std::string_view::npos) return g;
    text.remove_prefix(comma + 1);
  }
}

std::optional<Canonical> Canonicalize(const Graph& g, std::string* why) {
  const std::vector<int> colour = RefineColours(g);
  const auto out = g.OutDegrees(), in = g.InDegrees();
  std::map<int, std::vector<int>> by_colour;  // isolated vertices left out
  for (int v = 0; v < g.vertex_count(); ++v)
    if (out[v] + in[v] > 0) by_colour[colour[v]].push_back(v);
  std::vector<std::vector<int>> classes;
  long count = 1;
  for (auto& [c, members] : by_colour) {
    for (size_t k = 2; k <= members.size(); ++k) {
      count *= static_cast<long>(k);
      if (count > kMaxRelabellings) {
        *why = "graph too symmetric to canonicalize (over " +
               std::to_string(kMaxRelabellings) + " relabellings)";
        return std::nullopt;
      }
    }
    classes.push_back(members);
  }
  using Pair = std::pair<int, int>;
  std::vector<Pair> best;
  std::vector<int> best_map;
  std::vector<int> map(g.labels.size(), -1);
  do {
    int next = 0;
    for (const auto& c : classes)
      for (int v : c) map[v] = next++;
    std::vector<Pair> mapped;
    for (const Edge& e : g.edges) mapped.emplace_back(map[e.src], map[e.dst]);
    std::sort(mapped.begin(), mapped.end());
    if (best_map.empty() || mapped < best) {
      best = std::move(mapped);
      best_map = map;
    }
  } while (NextRelabelling(classes));
  Canonical c;
  for (const auto& [s, d] : best) {
    if (!c.form.empty()) c.form += ',';
    c.form += std::to_string(s) + '>' + std::to_string(d);
  }
  c.edge_order.resize(g.edges.size());
  for (size_t k = 0; k < c.edge_order.size(); ++k) c.edge_order[k] = int(k);
  std::stable_sort(c.edge_order.begin(), c.edge_order.end(), [&](int a, int b) {
    const Edge &ea = g.edges[a], &eb = g.edges[b];
    return Pair(best_map[ea.src], best_map[ea.dst]) <
           Pair(best_map[eb.src], best_map[eb.dst]);
  });
  return c;
}

}  // namespace verbsemu::contention
