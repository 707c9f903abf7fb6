#include "models/contention/contend_data.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "base/json_number.h"

namespace verbsemu::contention {
namespace {

using nlohmann::json;
namespace k = contend_key;

// A contract violation; its text is the one line the reader returns.
struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string Where(const std::string& at, const char* key) {
  return (at.empty() ? "" : at + ": ") + "\"" + key + "\"";
}

const json& Field(const json& o, const std::string& at, const char* key) {
  const auto it = o.find(key);
  if (it == o.end()) throw Bad(Where(at, key) + " missing");
  return *it;
}

std::int64_t Int(const json& o, const std::string& at, const char* key,
                 std::int64_t min, std::int64_t max) {
  const std::optional<std::int64_t> v =
      base::WholeNumber<std::int64_t>(Field(o, at, key));
  if (!v || *v < min || *v > max)
    throw Bad(Where(at, key) + " must be an integer in [" +
              std::to_string(min) + ", " + std::to_string(max) + "]");
  return *v;
}

std::int64_t OptionalInt(const json& o, const std::string& at,
                         const char* key) {
  return o.contains(key) ? Int(o, at, key, 0, kMaxContendNs) : 0;
}

std::string Str(const json& o, const std::string& at, const char* key) {
  const json& v = Field(o, at, key);
  if (!v.is_string()) throw Bad(Where(at, key) + " must be a string");
  return v.get<std::string>();
}

const json& Array(const json& o, const std::string& at, const char* key,
                  std::size_t max) {
  const json& v = Field(o, at, key);
  if (!v.is_array() || v.empty() || v.size() > max)
    throw Bad(Where(at, key) + " must be a list of 1 to " +
              std::to_string(max) + " entries");
  return v;
}

std::string At(const std::string& at, const char* key, std::size_t i) {
  return (at.empty() ? "" : at + ".") + key + "[" + std::to_string(i) + "]";
}

void CheckObject(const json& v, const std::string& at) {
  if (!v.is_object()) throw Bad(at + ": not an object");
}

ContendParams ReadParams(const json& doc) {
  const json& p = Field(doc, "", k::kParams);
  CheckObject(p, k::kParams);
  ContendParams r;
  const json& rate = Field(p, k::kParams, k::kPortRate);
  if (!rate.is_number() || !(rate.get<double>() > 0) ||
      !std::isfinite(rate.get<double>()))
    throw Bad(Where(k::kParams, k::kPortRate) + " must be a number > 0");
  r.port_rate_Bps = rate.get<double>();
  r.op = Str(p, k::kParams, k::kOp);
  bool known = false;
  for (const char* op : kContendOps) known = known || r.op == op;
  if (!known)
    throw Bad(Where(k::kParams, k::kOp) + " must be write, send or read");
  r.wr_size = OptionalInt(p, k::kParams, k::kWrSize);
  r.window = OptionalInt(p, k::kParams, k::kWindow);
  r.seed = OptionalInt(p, k::kParams, k::kSeed);
  return r;
}

std::vector<RankInfo> ReadRanks(const json& doc) {
  std::vector<RankInfo> ranks;
  std::set<int> seen;
  const json& list = Array(doc, "", k::kRanks, kMaxContendRanks);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = At("", k::kRanks, i);
    CheckObject(list[i], at);
    RankInfo r;
    r.rank = static_cast<int>(Int(list[i], at, k::kRank, 0, 1 << 30));
    r.host = Str(list[i], at, k::kHost);
    r.device = Str(list[i], at, k::kDevice);
    r.port = static_cast<int>(Int(list[i], at, k::kPort, 1, 255));
    if (!seen.insert(r.rank).second)
      throw Bad(at + ": rank " + std::to_string(r.rank) + " listed twice");
    ranks.push_back(std::move(r));
  }
  return ranks;
}

// The graph, its canonical form (which must be what the file says) and
// the rank of every vertex (distinct, listed in ranks).
void ReadShape(const json& o, const std::string& at, const std::set<int>& ranks,
               MeasuredGraph* g) {
  g->name = Str(o, at, k::kName);
  std::string why;
  const std::string text = Str(o, at, k::kGraph);
  auto parsed = ParseGraph(text, &why);
  if (!parsed) throw Bad(Where(at, k::kGraph) + ": " + why);
  g->graph = std::move(*parsed);
  const auto canonical = Canonicalize(g->graph, &why);
  if (!canonical) throw Bad(Where(at, k::kGraph) + ": " + why);
  g->canonical = Str(o, at, k::kCanonical);
  if (g->canonical != canonical->form)
    throw Bad(Where(at, k::kCanonical) + " is not the graph's canonical form " +
              canonical->form);
  const json& vertices = Field(o, at, k::kVertices);
  if (!vertices.is_object())
    throw Bad(Where(at, k::kVertices) + " must map each label to a rank");
  std::set<int> used;
  for (const std::string& label : g->graph.labels) {
    const std::string vat = at + ".vertices";
    const int rank = static_cast<int>(
        Int(vertices, vat, label.c_str(), 0, std::int64_t{1} << 30));
    if (!ranks.contains(rank) || !used.insert(rank).second)
      throw Bad(Where(vat, label.c_str()) + ": rank " + std::to_string(rank) +
                " is not in ranks or is another vertex's");
    g->vertex_rank.push_back(rank);
  }
}

std::vector<EdgePlan> ReadPlan(const json& o, const std::string& at,
                               int edges) {
  const json& list = Array(o, at, k::kEdges, kMaxEdges);
  if (static_cast<int>(list.size()) != edges)
    throw Bad(Where(at, k::kEdges) + " has " + std::to_string(list.size()) +
              " entries for " + std::to_string(edges) + " edges");
  std::vector<EdgePlan> plan;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string eat = At(at, k::kEdges, i);
    CheckObject(list[i], eat);
    plan.push_back({Int(list[i], eat, k::kBytes, 1, std::int64_t{1} << 48),
                    Int(list[i], eat, k::kStartOffset, 0, kMaxContendNs)});
  }
  return plan;
}

// Non-decreasing, within the sender's start and end.
std::vector<std::int64_t> ReadCompletions(const json& o, const std::string& at,
                                          const EdgeTiming& t) {
  const json& list = Array(o, at, k::kCompletions, kMaxContendCompletions);
  std::vector<std::int64_t> out;
  out.reserve(list.size());
  for (const json& v : list) {
    const std::optional<std::int64_t> ns = base::WholeNumber<std::int64_t>(v);
    const std::int64_t low = out.empty() ? t.send_start_ns : out.back();
    if (!ns || *ns < low || *ns > t.send_end_ns)
      throw Bad(Where(at, k::kCompletions) +
                " must be non-decreasing integers from \"" + k::kSendStart +
                "\" to \"" + k::kSendEnd + "\"");
    out.push_back(*ns);
  }
  return out;
}

EdgeTiming ReadTiming(const json& o, const std::string& at) {
  CheckObject(o, at);
  EdgeTiming t;
  t.send_start_ns = Int(o, at, k::kSendStart, 0, kMaxContendNs);
  t.send_end_ns = Int(o, at, k::kSendEnd, t.send_start_ns, kMaxContendNs);
  t.recv_start_ns = Int(o, at, k::kRecvStart, 0, kMaxContendNs);
  t.recv_end_ns = Int(o, at, k::kRecvEnd, t.recv_start_ns, kMaxContendNs);
  if (t.recv_end_ns <= t.send_start_ns)
    throw Bad(Where(at, k::kRecvEnd) + " must be after \"" +
              std::string(k::kSendStart) + "\"");
  if (o.contains(k::kCompletions)) t.completions_ns = ReadCompletions(o, at, t);
  return t;
}

std::vector<GraphRun> ReadRuns(const json& o, const std::string& at,
                               int edges) {
  std::vector<GraphRun> runs;
  const json& list = Array(o, at, k::kRuns, kMaxContendRuns);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string rat = At(at, k::kRuns, i);
    CheckObject(list[i], rat);
    GraphRun run;
    run.rep = static_cast<int>(Int(list[i], rat, k::kRep, 0, 1 << 30));
    run.block = static_cast<int>(Int(list[i], rat, k::kBlock, 0, 1 << 30));
    const json& times = Array(list[i], rat, k::kEdges, kMaxEdges);
    if (static_cast<int>(times.size()) != edges)
      throw Bad(Where(rat, k::kEdges) + " has " + std::to_string(times.size()) +
                " entries for " + std::to_string(edges) + " edges");
    for (std::size_t e = 0; e < times.size(); ++e)
      run.edges.push_back(ReadTiming(times[e], At(rat, k::kEdges, e)));
    runs.push_back(std::move(run));
  }
  return runs;
}

// At most 64 characters of s, control characters as '?': for messages.
std::string Printable(const std::string& s) {
  std::string out = s.substr(0, 64);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// An edge's measured time runs from its planned start to its receiver's end.
void CheckEnds(const MeasuredGraph& g, const std::string& at) {
  for (std::size_t r = 0; r < g.runs.size(); ++r)
    for (std::size_t e = 0; e < g.edges.size(); ++e)
      if (g.runs[r].edges[e].recv_end_ns <= g.edges[e].start_offset_ns)
        throw Bad(Where(At(At(at, k::kRuns, r), k::kEdges, e), k::kRecvEnd) +
                  " must be after the edge's \"" + k::kStartOffset + "\"");
}

void CheckSchema(const json& doc) {
  if (!doc.is_object() || !doc.contains(k::kSchema) ||
      !doc[k::kSchema].is_string())
    throw Bad("not a contention measurement (no \"schema\")");
  const std::string schema = doc[k::kSchema].get<std::string>();
  if (schema == kContendSchema) return;
  if (schema.starts_with(kContendSchemaFamily))
    throw Bad("schema " + Printable(schema) + ", this contentionfit reads " +
              kContendSchema + ": use the contentionfit of the same release");
  throw Bad("not a contention measurement (schema \"" + Printable(schema) +
            "\", expected " + kContendSchema + ")");
}

ContendData Read(const json& doc) {
  CheckSchema(doc);
  ContendData d;
  d.params = ReadParams(doc);
  d.ranks = ReadRanks(doc);
  std::set<int> ranks;
  for (const RankInfo& r : d.ranks) ranks.insert(r.rank);
  const json& graphs = Array(doc, "", k::kGraphs, kMaxContendGraphs);
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const std::string at = At("", k::kGraphs, i);
    CheckObject(graphs[i], at);
    MeasuredGraph g;
    ReadShape(graphs[i], at, ranks, &g);
    g.edges = ReadPlan(graphs[i], at, g.graph.edge_count());
    g.runs = ReadRuns(graphs[i], at, g.graph.edge_count());
    CheckEnds(g, at);
    d.graphs.push_back(std::move(g));
  }
  return d;
}

json GraphJson(const MeasuredGraph& g) {
  json vertices = json::object();
  for (int v = 0; v < g.graph.vertex_count(); ++v)
    vertices[g.graph.labels[v]] = g.vertex_rank[v];
  json edges = json::array(), runs = json::array();
  for (const EdgePlan& e : g.edges)
    edges.push_back(
        {{k::kBytes, e.bytes}, {k::kStartOffset, e.start_offset_ns}});
  for (const GraphRun& r : g.runs) {
    json times = json::array();
    for (const EdgeTiming& t : r.edges) {
      json one = {{k::kSendStart, t.send_start_ns},
                  {k::kSendEnd, t.send_end_ns},
                  {k::kRecvStart, t.recv_start_ns},
                  {k::kRecvEnd, t.recv_end_ns}};
      if (!t.completions_ns.empty()) one[k::kCompletions] = t.completions_ns;
      times.push_back(std::move(one));
    }
    runs.push_back(
        {{k::kRep, r.rep}, {k::kBlock, r.block}, {k::kEdges, times}});
  }
  return {{k::kName, g.name},           {k::kGraph, g.graph.ToString()},
          {k::kCanonical, g.canonical}, {k::kVertices, vertices},
          {k::kEdges, edges},           {k::kRuns, runs}};
}

}  // namespace

bool MeasuredGraph::StaticSynchronous() const {
  for (const EdgePlan& e : edges)
    if (e.start_offset_ns != 0 || e.bytes != edges.front().bytes) return false;
  return !edges.empty();
}

std::optional<ContendData> ParseContend(std::string_view text,
                                        std::string* why) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *why = text.empty() ? "empty file" : "not a complete JSON document";
    return std::nullopt;
  }
  try {
    return Read(doc);
  } catch (const Bad& e) {
    *why = e.what();
  } catch (const json::exception& e) {
    *why = std::string("unexpected JSON: ") + e.what();
  }
  return std::nullopt;
}

std::string WriteContend(const ContendData& d) {
  json ranks = json::array(), graphs = json::array();
  for (const RankInfo& r : d.ranks)
    ranks.push_back({{k::kRank, r.rank},
                     {k::kHost, r.host},
                     {k::kDevice, r.device},
                     {k::kPort, r.port}});
  for (const MeasuredGraph& g : d.graphs) graphs.push_back(GraphJson(g));
  const json doc = {{k::kSchema, kContendSchema},
                    {k::kParams,
                     {{k::kPortRate, d.params.port_rate_Bps},
                      {k::kOp, d.params.op},
                      {k::kWrSize, d.params.wr_size},
                      {k::kWindow, d.params.window},
                      {k::kSeed, d.params.seed}}},
                    {k::kRanks, ranks},
                    {k::kGraphs, graphs}};
  return doc.dump(1) + "\n";
}

}  // namespace verbsemu::contention
