#include "models/contention/synth.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/contention/solver.h"

namespace verbsemu::contention {

std::vector<std::string> SynthGraphs() {
  return {// One edge (alpha); two: fan-out, incast, chain, duplex, apart,
          // parallel; three: incast, fan-out meeting a single sender.
          "a>b", "a>b,a>c", "a>c,b>c", "a>b,b>c", "a>b,b>a", "a>b,c>d",
          "a>b,a>b", "a>d,b>d,c>d", "a>b,a>c,d>b",
          // The paper's Fig. 2 (graphs 1-4), Fig. 3, Fig. 4 A and B.
          "a>b,a>c,a>d", "b>a,b>e,c>a,c>f", "a>b,a>c,a>d,d>b,d>c",
          "a>b,a>c,d>b,e>c", "a>b,a>c,a>d,e>b,e>f,g>f", "a>b,a>c,d>c,e>c,f>b",
          "a>b,a>c,d>b,e>b,f>b",
          // Four to six edges.
          "a>b,c>b,c>d,e>d", "a>b,a>c,b>c,d>c", "a>c,b>c,c>d,d>a,e>a",
          "a>b,a>c,d>b,d>c,e>b,f>c"};
}

namespace {

// When edge i of the solution has moved each WR's bytes, in seconds.
std::vector<double> Completions(const Solution& s, int i, double bytes,
                                double wr_size) {
  std::vector<double> out;
  double left = bytes;  // at the step's begin
  double sent = wr_size < bytes ? wr_size : bytes;
  for (const Step& step : s.steps) {
    for (const StepEdge& a : step.active) {
      if (a.edge != i) continue;
      const double moved = left - a.remaining;
      while (moved > 0 && bytes - sent >= a.remaining - 1e-9 * bytes) {
        const double done = (left - (bytes - sent)) / moved;
        out.push_back(step.begin_s + done * (step.end_s - step.begin_s));
        if (sent >= bytes) return out;
        sent = sent + wr_size < bytes ? sent + wr_size : bytes;
      }
      left = a.remaining;
    }
  }
  return out;
}

MeasuredGraph SynthGraph(const std::string& text, const SynthOptions& o,
                         std::mt19937_64* rng) {
  std::string why;
  auto g = ParseGraph(text, &why);
  if (!g) throw std::invalid_argument("graph '" + text + "': " + why);
  const auto canonical = Canonicalize(*g, &why);
  if (!canonical) throw std::invalid_argument("graph '" + text + "': " + why);
  MeasuredGraph m;
  m.name = text;
  m.graph = std::move(*g);
  m.canonical = canonical->form;
  for (const std::string& label : m.graph.labels) {
    if (label.size() != 1 || label[0] < 'a' || label[0] > 'h')
      throw std::invalid_argument("graph '" + text +
                                  "': synthetic graphs use vertices a..h");
    m.vertex_rank.push_back(label[0] - 'a');
  }
  m.edges.assign(m.graph.edge_count(), EdgePlan{o.bytes, 0});
  const Solution s = SolveSynchronous(
      m.graph, static_cast<double>(o.bytes), 1.0 / o.port_rate_Bps,
      o.cache ? o.cache->Of(*o.model) : o.model->penalties);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int rep = 0; rep < o.reps; ++rep) {
    GraphRun run{rep, rep, {}};
    for (std::size_t i = 0; i < s.end_s.size(); ++i) {
      const double factor = std::exp(o.noise * normal(*rng));
      const auto ns =
          std::max<std::int64_t>(std::llround(s.end_s[i] * factor * 1e9), 1);
      EdgeTiming t{0, ns, 0, ns, {}};
      if (o.wr_size > 0) {
        for (const double c :
             Completions(s, static_cast<int>(i), static_cast<double>(o.bytes),
                         static_cast<double>(o.wr_size)))
          t.completions_ns.push_back(
              std::min<std::int64_t>(std::llround(c * factor * 1e9), ns));
        if (!t.completions_ns.empty()) t.completions_ns.back() = ns;
      }
      run.edges.push_back(std::move(t));
    }
    m.runs.push_back(std::move(run));
  }
  return m;
}

}  // namespace

ContendData Synthesize(const SynthOptions& o) {
  if (o.model == nullptr) throw std::invalid_argument("no model");
  if (!(o.port_rate_Bps > 0) || !std::isfinite(o.port_rate_Bps) ||
      o.bytes <= 0 || o.reps < 1 || o.reps > 1000 || !(o.noise >= 0) ||
      o.noise > 0.5)
    throw std::invalid_argument(
        "synthetic data needs a rate > 0, bytes > 0, 1 to 1000 repetitions "
        "and a noise in [0, 0.5]");
  if (o.wr_size < 0 ||
      (o.wr_size > 0 && (o.bytes + o.wr_size - 1) / o.wr_size >
                            static_cast<std::int64_t>(kMaxContendCompletions)))
    throw std::invalid_argument(
        "synthetic completions need a WR size >= 0 that splits an edge in at "
        "most " +
        std::to_string(kMaxContendCompletions) + " WRs");
  ContendData d;
  d.params.port_rate_Bps = o.port_rate_Bps;
  d.params.seed = static_cast<std::int64_t>(o.seed & 0x7fffffff);
  d.params.wr_size = o.wr_size;
  for (int r = 0; r < 8; ++r)
    d.ranks.push_back(
        {r, "synthetic", std::string("synth") + char('a' + r), 1});
  std::mt19937_64 rng(o.seed);
  for (const std::string& text : o.graphs.empty() ? SynthGraphs() : o.graphs)
    d.graphs.push_back(SynthGraph(text, o, &rng));
  return d;
}

}  // namespace verbsemu::contention
