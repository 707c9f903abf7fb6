#include "verbsbench/contend/summary.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "stats/stats.h"

namespace verbsbench::contend {
namespace {

namespace mc = verbsemu::contention;

using verbsemu::stats::Median;

// T of every run of edge e: the receiver's end after the planned start.
std::vector<double> Times(const MeasuredGraph& g, size_t e) {
  std::vector<double> t;
  for (const mc::GraphRun& r : g.runs)
    t.push_back(static_cast<double>(r.edges[e].recv_end_ns -
                                    g.edges[e].start_offset_ns));
  return t;
}

}  // namespace

std::vector<EdgeTiming> MergeSides(int edges, const std::vector<SideTime>& s) {
  std::vector<EdgeTiming> out(static_cast<size_t>(edges));
  std::vector<int> seen(static_cast<size_t>(edges) * 2, 0);
  for (const SideTime& t : s) {
    if (t.edge < 0 || t.edge >= edges)
      throw std::runtime_error("timing for edge " + std::to_string(t.edge) +
                               " of a " + std::to_string(edges) +
                               "-edge graph");
    ++seen[static_cast<size_t>(t.edge) * 2 + (t.send ? 0 : 1)];
    EdgeTiming& e = out[static_cast<size_t>(t.edge)];
    (t.send ? e.send_start_ns : e.recv_start_ns) =
        std::max<std::int64_t>(0, t.start_ns);
    (t.send ? e.send_end_ns : e.recv_end_ns) =
        std::max<std::int64_t>(std::max<std::int64_t>(0, t.start_ns), t.end_ns);
    if (!t.send) continue;
    // Within the sender's start and end, in order, as the contract holds.
    e.completions_ns.clear();
    for (const std::int64_t c : t.completions_ns)
      e.completions_ns.push_back(std::clamp(
          std::max(c, e.completions_ns.empty() ? e.send_start_ns
                                               : e.completions_ns.back()),
          e.send_start_ns, e.send_end_ns));
  }
  for (int e = 0; e < edges; ++e)
    for (int side = 0; side < 2; ++side)
      if (seen[static_cast<size_t>(e) * 2 + side] != 1)
        throw std::runtime_error("edge " + std::to_string(e) + " has " +
                                 std::to_string(seen[e * 2 + side]) + " " +
                                 (side ? "receiver" : "sender") +
                                 " timings, not 1");
  return out;
}

MeasuredGraph Measured(const PlannedGraph& p) {
  std::string why;
  const auto canonical = mc::Canonicalize(p.graph, &why);
  if (!canonical) throw std::invalid_argument("graph '" + p.name + "': " + why);
  MeasuredGraph m;
  m.name = p.name;
  m.graph = p.graph;
  m.canonical = canonical->form;
  for (int v = 0; v < p.graph.vertex_count(); ++v) m.vertex_rank.push_back(v);
  m.edges = p.edges;
  return m;
}

std::optional<double> Alpha(const ContendData& d) {
  std::vector<double> per_byte;
  for (const MeasuredGraph& g : d.graphs) {
    if (g.graph.edge_count() != 1) continue;
    for (double t : Times(g, 0))
      per_byte.push_back(t * 1e-9 / static_cast<double>(g.edges[0].bytes));
  }
  if (per_byte.empty()) return std::nullopt;
  return Median(per_byte);
}

double PortRate(const ContendData& d) {
  if (const auto alpha = Alpha(d); alpha && *alpha > 0) return 1 / *alpha;
  double best = 0;
  for (const MeasuredGraph& g : d.graphs)
    for (size_t e = 0; e < g.edges.size(); ++e)
      for (double t : Times(g, e))
        if (t > 0)
          best =
              std::max(best, static_cast<double>(g.edges[e].bytes) / t * 1e9);
  return best > 0 ? best : 1;
}

std::vector<EdgeRow> Summarize(const ContendData& d) {
  const std::optional<double> alpha = Alpha(d);
  std::vector<EdgeRow> rows;
  for (const MeasuredGraph& g : d.graphs) {
    if (g.runs.empty()) continue;
    for (size_t e = 0; e < g.edges.size(); ++e) {
      const std::vector<double> t = Times(g, e);
      EdgeRow row;
      row.graph = g.name;
      row.edge = static_cast<int>(e);
      const mc::Edge& edge = g.graph.edges[e];
      row.transfer = g.graph.labels[edge.src] + '>' + g.graph.labels[edge.dst];
      row.bytes = g.edges[e].bytes;
      row.runs = static_cast<int>(t.size());
      row.median_ns = Median(t);
      row.min_ns = *std::min_element(t.begin(), t.end());
      row.max_ns = *std::max_element(t.begin(), t.end());
      if (alpha && *alpha > 0)
        row.over_ref =
            row.median_ns * 1e-9 / (*alpha * static_cast<double>(row.bytes));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + '"';
}

}  // namespace

void WriteCsv(const ContendData& d, std::ostream& out) {
  out << "graph,canonical,rep,block,edge,transfer,src_rank,dst_rank,bytes,"
         "start_offset_ns,send_start_ns,send_end_ns,recv_start_ns,"
         "recv_end_ns,t_ns\n";
  for (const MeasuredGraph& g : d.graphs) {
    for (const mc::GraphRun& r : g.runs) {
      for (size_t e = 0; e < g.edges.size() && e < r.edges.size(); ++e) {
        const mc::Edge& edge = g.graph.edges[e];
        const EdgeTiming& t = r.edges[e];
        const std::int64_t start = g.edges[e].start_offset_ns;
        out << CsvField(g.name) << ',' << CsvField(g.canonical) << ',' << r.rep
            << ',' << r.block << ',' << e << ','
            << CsvField(g.graph.labels[edge.src] + '>' +
                        g.graph.labels[edge.dst])
            << ',' << g.vertex_rank[edge.src] << ',' << g.vertex_rank[edge.dst]
            << ',' << g.edges[e].bytes << ',' << start << ',' << t.send_start_ns
            << ',' << t.send_end_ns << ',' << t.recv_start_ns << ','
            << t.recv_end_ns << ',' << t.recv_end_ns - start << '\n';
      }
    }
  }
}

void PrintTable(const std::vector<EdgeRow>& rows, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-24s %4s %-10s %10s %4s %11s %11s %11s %7s\n", "graph",
                "edge", "transfer", "bytes", "runs", "T_med_ms", "T_min_ms",
                "T_max_ms", "T/Tref");
  out << line;
  for (const EdgeRow& r : rows) {
    char ref[32] = "-";
    if (r.over_ref) std::snprintf(ref, sizeof ref, "%.3f", *r.over_ref);
    std::snprintf(line, sizeof line,
                  "%-24s %4d %-10s %10lld %4d %11.4f %11.4f %11.4f %7s\n",
                  r.graph.substr(0, 24).c_str(), r.edge, r.transfer.c_str(),
                  static_cast<long long>(r.bytes), r.runs, r.median_ns / 1e6,
                  r.min_ns / 1e6, r.max_ns / 1e6, ref);
    out << line;
  }
}

}  // namespace verbsbench::contend
