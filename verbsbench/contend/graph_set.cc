#include "verbsbench/contend/graph_set.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "emulate/units.h"
#include "models/contention/models.h"
#include "models/contention/paper_graphs.h"
#include "models/contention/solver.h"

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

// a..z, then v26, v27, ...
std::string Label(int v) {
  return v < 26 ? std::string(1, static_cast<char>('a' + v))
                : "v" + std::to_string(v);
}

Graph ParseOrThrow(const std::string& text) {
  std::string why;
  auto g = mc::ParseGraph(text, &why);
  if (!g) throw std::invalid_argument("graph '" + text + "': " + why);
  return std::move(*g);
}

// The graph of "0>1,0>2" with letters for the numbers.
Graph FromForm(const std::string& form) {
  const Graph numbered = ParseOrThrow(form);
  std::string text;
  for (const mc::Edge& e : numbered.edges) {
    if (!text.empty()) text += ',';
    text += Label(std::stoi(numbered.labels[e.src])) + '>' +
            Label(std::stoi(numbered.labels[e.dst]));
  }
  return ParseOrThrow(text);
}

std::string CanonicalForm(const Graph& g) {
  std::string why;
  const auto c = mc::Canonicalize(g, &why);
  if (!c) throw std::invalid_argument("graph '" + g.ToString() + "': " + why);
  return c->form;
}

// The edge's size and start: "a>b:1MiB@2ms" → "a>b" and the plan.
std::string SplitSizeAndStart(const std::string& item, const SetOptions& o,
                              EdgePlan* plan) {
  std::string edge = item;
  plan->bytes = o.bytes;
  plan->start_offset_ns = 0;
  const size_t at = edge.find('@');
  if (at != std::string::npos) {
    const std::string text = Trim(edge.substr(at + 1));
    std::string why;
    const auto ns = verbsemu::units::ParseDurationNs(text, &why);
    if (!ns || *ns < 0 || *ns > 1e12)
      throw std::invalid_argument(
          "edge '" + item + "': start '" + text +
          "' is not accepted: " + (why.empty() ? "0 to 1000 s" : why));
    plan->start_offset_ns = std::llround(*ns);
    edge.resize(at);
  }
  const size_t colon = edge.find(':');
  if (colon != std::string::npos) {
    const std::string text = Trim(edge.substr(colon + 1));
    std::string why;
    const auto bytes = verbsemu::units::ParseBytes(text, &why);
    if (!bytes || *bytes == 0 || *bytes > static_cast<uint64_t>(o.max_bytes))
      throw std::invalid_argument(
          "edge '" + item + "': size '" + text + "' is not accepted: " +
          (why.empty() ? "1 byte to " + std::to_string(o.max_bytes) : why));
    plan->bytes = static_cast<std::int64_t>(*bytes);
    edge.resize(colon);
  }
  return edge;
}

PlannedGraph Uniform(std::string name, Graph g, const SetOptions& o) {
  PlannedGraph p{std::move(name), std::move(g), {}};
  p.edges.assign(p.graph.edges.size(), EdgePlan{o.bytes, 0});
  return p;
}

int Number(const std::string& text, const std::string& spec, int lo, int hi) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < lo || v > hi)
    throw std::invalid_argument("'" + spec + "': '" + text +
                                "' is not a number from " + std::to_string(lo) +
                                " to " + std::to_string(hi));
  return v;
}

std::vector<PlannedGraph> Calibrate(const SetOptions& o) {
  return {Uniform("alone", ParseOrThrow("a>b"), o),
          Uniform("duplex", ParseOrThrow("a>b,b>a"), o),
          Uniform("apart", ParseOrThrow("a>b,c>d"), o),
          Uniform("chain", ParseOrThrow("a>b,b>c"), o)};
}

std::vector<PlannedGraph> Mm2011(const SetOptions& o) {
  namespace p = mc::paper;
  const std::pair<const char*, const char*> named[] = {
      {"fig2.1", p::kFig2Graph1}, {"fig2.2", p::kFig2Graph2},
      {"fig2.3", p::kFig2Graph3}, {"fig2.4", p::kFig2Graph4},
      {"fig3", p::kFig3},         {"fig4a", p::kFig4A},
      {"fig4b", p::kFig4B}};
  std::vector<PlannedGraph> out;
  for (const auto& [name, text] : named)
    out.push_back(Uniform(name, ParseOrThrow(text), o));
  return out;
}

// "random:N:E1-E2".
std::vector<PlannedGraph> Random(const std::string& spec, const SetOptions& o) {
  const size_t second = spec.find(':', 7);
  const size_t dash = spec.find('-', second == std::string::npos ? 0 : second);
  if (second == std::string::npos || dash == std::string::npos)
    throw std::invalid_argument("'" + spec + "' is not random:N:E1-E2");
  const int n = Number(spec.substr(7, second - 7), spec, 1, 1000);
  const int lo = Number(spec.substr(second + 1, dash - second - 1), spec, 1,
                        static_cast<int>(mc::kMaxEdges));
  const int hi =
      Number(spec.substr(dash + 1), spec, lo, static_cast<int>(mc::kMaxEdges));
  std::mt19937_64 rng(o.seed);
  std::vector<PlannedGraph> out;
  for (int e = lo; e <= hi; ++e) {
    int k = 0;
    for (Graph& g : RandomGraphs(n, e, o.ranks, o.max_degree, rng))
      out.push_back(Uniform(
          "random" + std::to_string(e) + "." + std::to_string(k++), g, o));
  }
  return out;
}

std::vector<PlannedGraph> BuiltIn(const std::string& spec,
                                  const SetOptions& o) {
  if (spec == "calibrate") return Calibrate(o);
  if (spec == "mm2011") return Mm2011(o);
  if (spec.starts_with("random:")) return Random(spec, o);
  const int e = Number(spec.substr(7), spec, 1, kMaxShapeEdges);
  std::vector<PlannedGraph> out;
  for (Graph& g : Shapes(e)) {
    std::string name = "shape:" + g.ToString();
    out.push_back(Uniform(std::move(name), std::move(g), o));
  }
  return out;
}

// The edges of `g` that end after `end_s` (with a relative tolerance).
std::vector<int> RunningAfter(const std::vector<double>& end_s, double t) {
  std::vector<int> ids;
  for (size_t e = 0; e < end_s.size(); ++e)
    if (end_s[e] > t * (1 + 1e-6)) ids.push_back(static_cast<int>(e));
  return ids;
}

// The residual graphs of p, as mm2011-node orders its edges' ends.
std::vector<Graph> Residuals(const PlannedGraph& p) {
  const mc::Model* model = mc::FindModel("mm2011-node");
  const mc::Solution s =
      mc::SolveSynchronous(p.graph, static_cast<double>(p.edges.front().bytes),
                           1e-9, model->penalties);
  std::vector<double> ends = s.end_s;
  std::sort(ends.begin(), ends.end());
  std::vector<Graph> out;
  double last = -1;
  for (double t : ends) {
    if (last >= 0 && t <= last * (1 + 1e-6)) continue;
    last = t;
    const std::vector<int> ids = RunningAfter(s.end_s, t);
    if (ids.empty()) break;
    out.push_back(ParseOrThrow(p.graph.Subgraph(ids).ToString()));
  }
  return out;
}

// One random graph, or nullopt when the degree bound stopped the draw.
std::optional<Graph> DrawGraph(int edges, int vertices, int max_degree,
                               std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, vertices - 1);
  std::vector<int> out_deg(vertices), in_deg(vertices);
  std::string text;
  int drawn = 0;
  for (int tries = 0; drawn < edges && tries < 100000; ++tries) {
    const int s = pick(rng), d = pick(rng);
    if (s == d || out_deg[s] >= max_degree || in_deg[d] >= max_degree) continue;
    ++out_deg[s];
    ++in_deg[d];
    text += (text.empty() ? "" : ",") + Label(s) + '>' + Label(d);
    ++drawn;
  }
  if (drawn < edges) return std::nullopt;
  return ParseOrThrow(text);
}

}  // namespace

bool PlannedGraph::StaticSynchronous() const {
  for (const EdgePlan& e : edges)
    if (e.start_offset_ns != 0 || e.bytes != edges.front().bytes) return false;
  return !edges.empty();
}

PlannedGraph ParsePlannedGraph(const std::string& text, const SetOptions& o) {
  std::string rest = text, name;
  const size_t colon = text.find(':');
  if (colon != std::string::npos &&
      text.substr(0, colon).find('>') == std::string::npos) {
    name = Trim(text.substr(0, colon));
    rest = text.substr(colon + 1);
  }
  PlannedGraph p;
  std::string edges;
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    EdgePlan plan;
    const std::string edge =
        SplitSizeAndStart(rest.substr(start, comma - start), o, &plan);
    edges += (edges.empty() ? "" : ",") + edge;
    p.edges.push_back(plan);
    start = comma + 1;
  }
  p.graph = ParseOrThrow(Trim(edges));
  p.name = name.empty() ? p.graph.ToString() : name;
  CanonicalForm(p.graph);  // refuses a graph the contract cannot hold
  return p;
}

std::vector<Graph> Shapes(int max_edges) {
  std::vector<Graph> out;
  std::vector<Graph> frontier = {Graph{}};
  for (int k = 1; k <= max_edges; ++k) {
    std::map<std::string, Graph> next;
    for (const Graph& g : frontier) {
      const int v = g.vertex_count();
      // New vertices are v, then v + 1: no gaps.
      for (int s = 0; s < v + 2; ++s) {
        for (int d = 0; d < v + 2; ++d) {
          if (s == d || (s == v + 1 && d != v) || (d == v + 1 && s != v))
            continue;
          Graph h = g;
          while (h.vertex_count() <= std::max(s, d))
            h.labels.push_back(Label(h.vertex_count()));
          h.edges.push_back({s, d});
          next.emplace(CanonicalForm(h), h);
        }
      }
    }
    frontier.clear();
    for (const auto& [form, g] : next) {
      frontier.push_back(g);
      out.push_back(FromForm(form));
    }
  }
  return out;
}

std::vector<Graph> RandomGraphs(int count, int edges, int vertices,
                                int max_degree, std::mt19937_64& rng) {
  if (vertices < 2 || max_degree < 1 || edges > vertices * max_degree)
    throw std::invalid_argument("cannot draw " + std::to_string(edges) +
                                "-edge graphs on " + std::to_string(vertices) +
                                " vertices with degrees up to " +
                                std::to_string(max_degree));
  std::vector<Graph> out;
  for (int failed = 0; static_cast<int>(out.size()) < count;) {
    if (failed > 1000)
      throw std::invalid_argument("no " + std::to_string(edges) +
                                  "-edge graph found within the degree bound");
    if (auto g = DrawGraph(edges, vertices, max_degree, rng)) {
      out.push_back(std::move(*g));
    } else {
      ++failed;
    }
  }
  return out;
}

std::vector<PlannedGraph> WithClosure(std::vector<PlannedGraph> graphs) {
  std::set<std::string> forms;
  for (const PlannedGraph& p : graphs) forms.insert(CanonicalForm(p.graph));
  const size_t given = graphs.size();
  for (size_t i = 0; i < given; ++i) {
    if (!graphs[i].StaticSynchronous()) continue;
    const std::int64_t bytes = graphs[i].edges.front().bytes;
    for (Graph& r : Residuals(graphs[i])) {
      if (!forms.insert(CanonicalForm(r)).second) continue;
      PlannedGraph p{"residual:" + r.ToString(), std::move(r), {}};
      p.edges.assign(p.graph.edges.size(), EdgePlan{bytes, 0});
      graphs.push_back(std::move(p));
    }
  }
  return graphs;
}

std::vector<PlannedGraph> ExpandGraphs(const std::string& spec,
                                       const SetOptions& o, int* left_out) {
  const bool builtin = spec == "calibrate" || spec == "mm2011" ||
                       spec.starts_with("shapes:") ||
                       spec.starts_with("random:");
  if (!builtin) {
    PlannedGraph p = ParsePlannedGraph(spec, o);
    if (p.graph.vertex_count() > o.ranks)
      throw std::invalid_argument("graph '" + p.name + "' needs " +
                                  std::to_string(p.graph.vertex_count()) +
                                  " vertices, the run has " +
                                  std::to_string(o.ranks) + " ranks");
    return {std::move(p)};
  }
  std::vector<PlannedGraph> out;
  for (PlannedGraph& p : BuiltIn(spec, o)) {
    if (p.graph.vertex_count() <= o.ranks) {
      out.push_back(std::move(p));
    } else {
      ++*left_out;
    }
  }
  return out;
}

std::vector<PlannedGraph> ExpandAll(const std::vector<std::string>& specs,
                                    const SetOptions& o, bool closure,
                                    int* left_out) {
  std::vector<PlannedGraph> out;
  const std::vector<std::string> given =
      specs.empty() ? std::vector<std::string>{"calibrate"} : specs;
  for (const std::string& spec : given)
    for (PlannedGraph& p : ExpandGraphs(spec, o, left_out))
      out.push_back(std::move(p));
  if (out.empty())
    throw std::invalid_argument("no graph of the set fits in " +
                                std::to_string(o.ranks) + " ranks");
  return closure ? WithClosure(std::move(out)) : out;
}

}  // namespace verbsbench::contend
