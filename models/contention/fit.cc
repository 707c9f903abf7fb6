#include "models/contention/fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <stdexcept>

#include "models/contention/inverse.h"
#include "models/contention/models.h"
#include "models/contention/solver.h"
#include "stats/stats.h"

namespace verbsemu::contention {
namespace {

// Parameters of every model's likelihood: alpha and the residuals' sigma.
constexpr int kParameters = 2;

using stats::Median;

Interval FitAlpha(const ContendData& d) {
  std::vector<double> per_byte;
  for (const MeasuredGraph& g : d.graphs)
    if (g.graph.edge_count() == 1)
      for (std::size_t r = 0; r < g.runs.size(); ++r)
        per_byte.push_back(MeasuredSeconds(g, static_cast<int>(r), 0) /
                           static_cast<double>(g.edges[0].bytes));
  if (per_byte.empty())
    throw std::invalid_argument(
        "no one-edge graph (a>b) in the measurement: alpha comes from it, "
        "measure it with the other graphs");
  return TInterval(per_byte);
}

// Akaike's criterion, corrected for small n, of Gaussian residuals.
double Aicc(int n, double rss) {
  const double k = kParameters;
  const double sigma2 = std::max(rss / n, 1e-24);
  const double log_l = -0.5 * n * (std::log(2 * std::numbers::pi * sigma2) + 1);
  const double correction = n - k - 1 > 0 ? 2 * k * (k + 1) / (n - k - 1) : 0;
  return 2 * k - 2 * log_l + correction;
}

void AddToGroup(int edges, const std::vector<double>& errs,
                std::vector<GroupScore>* groups) {
  auto it = std::find_if(groups->begin(), groups->end(),
                         [&](const GroupScore& s) { return s.edges == edges; });
  if (it == groups->end()) it = groups->insert(groups->end(), {edges});
  double sum = 0;
  for (const double e : errs) {
    sum += e;
    it->max_err = std::max(it->max_err, e);
    if (e <= 0.15) ++it->transfers_within15;
  }
  ++it->graphs;
  it->transfers += static_cast<int>(errs.size());
  it->max_graph_mean_err =
      std::max(it->max_graph_mean_err, sum / static_cast<double>(errs.size()));
}

// Each edge's |err| of the median of its runs' times.
void AddEdgeMedians(const MeasuredGraph& g, const Solution& p,
                    const std::vector<Transfer>& plan,
                    std::vector<double>* errs) {
  for (int i = 0; i < g.graph.edge_count(); ++i) {
    std::vector<double> t;
    for (std::size_t r = 0; r < g.runs.size(); ++r)
      t.push_back(MeasuredSeconds(g, static_cast<int>(r), i));
    errs->push_back(std::abs(Median(t) / (p.end_s[i] - plan[i].start_s) - 1));
  }
}

ModelScore Score(const ContendData& d, const Model& model, double alpha,
                 PenaltyCache* cache) {
  ModelScore s;
  s.name = model.name;
  std::vector<double> all, per_edge;
  for (const MeasuredGraph& g : d.graphs) {
    std::vector<Transfer> plan;
    plan.reserve(g.edges.size());
    for (const EdgePlan& e : g.edges) {
      plan.push_back({static_cast<double>(e.bytes),
                      static_cast<double>(e.start_offset_ns) * 1e-9});
    }
    const Solution p = Solve(g.graph, plan, alpha, cache->Of(model));
    std::vector<double> errs;
    for (std::size_t r = 0; r < g.runs.size(); ++r)
      for (int i = 0; i < g.graph.edge_count(); ++i) {
        const double ratio = MeasuredSeconds(g, static_cast<int>(r), i) /
                             (p.end_s[i] - plan[i].start_s);
        s.rss += std::log(ratio) * std::log(ratio);
        errs.push_back(std::abs(ratio - 1));
      }
    AddEdgeMedians(g, p, plan, &per_edge);
    AddToGroup(g.graph.edge_count(), errs, &s.groups);
    all.insert(all.end(), errs.begin(), errs.end());
  }
  std::sort(s.groups.begin(), s.groups.end(),
            [](const GroupScore& a, const GroupScore& b) {
              return a.edges < b.edges;
            });
  s.n = static_cast<int>(all.size());
  s.aicc = Aicc(s.n, s.rss);
  s.median_err = Median(all);
  s.max_err = *std::max_element(all.begin(), all.end());
  s.within15 =
      static_cast<double>(std::count_if(all.begin(), all.end(),
                                        [](double e) { return e <= 0.15; })) /
      s.n;
  std::sort(per_edge.begin(), per_edge.end());
  s.edges = static_cast<int>(per_edge.size());
  s.edge_median_err = stats::Quantile(per_edge, 0.5);
  s.edge_p95_err = stats::Quantile(per_edge, 0.95);
  s.edge_max_err = per_edge.back();
  return s;
}

void ScorePenalties(const ContendData& d,
                    const std::vector<EdgePenalty>& penalties, const Model& m,
                    PenaltyCache* cache, ModelScore* s) {
  std::vector<double> errs;
  for (const EdgePenalty& p : penalties) {
    if (!p.flag.empty()) continue;
    const double rho = cache->Get(m, d.graphs[p.graph].graph)[p.edge];
    errs.push_back(std::abs(p.rho1.value / rho - 1));
  }
  s->penalties = static_cast<int>(errs.size());
  if (errs.empty()) return;
  s->penalty_median_err = Median(errs);
  s->penalty_max_err = *std::max_element(errs.begin(), errs.end());
  s->penalties_within4 =
      static_cast<double>(std::count_if(errs.begin(), errs.end(),
                                        [](double e) { return e <= 0.04; })) /
      static_cast<double>(errs.size());
}

PenaltyErrors Errors(std::vector<double> errs) {
  PenaltyErrors e;
  e.n = static_cast<int>(errs.size());
  if (errs.empty()) return e;
  e.median = Median(errs);
  e.max = *std::max_element(errs.begin(), errs.end());
  e.within3 =
      static_cast<double>(std::count_if(errs.begin(), errs.end(),
                                        [](double x) { return x <= 0.03; })) /
      static_cast<double>(errs.size());
  return e;
}

PenaltyErrors SteadyAgainst(const ContendData& d, const SteadyResult& steady,
                            const Model& m, PenaltyCache* cache) {
  std::vector<double> errs;
  for (const SteadyPenalty& p : steady.penalties) {
    if (p.rho.n == 0) continue;
    const double rho = cache->Get(m, d.graphs[p.graph].graph)[p.edge];
    errs.push_back(std::abs(p.rho.value / rho - 1));
  }
  return Errors(std::move(errs));
}

PenaltyErrors SteadyAgainstInverted(const FitResult& f) {
  std::map<std::pair<int, int>, double> inverted;
  for (const EdgePenalty& p : f.penalties)
    if (p.flag.empty()) inverted[{p.graph, p.edge}] = p.rho1.value;
  std::vector<double> errs;
  for (const SteadyPenalty& p : f.steady.penalties) {
    const auto it = inverted.find({p.graph, p.edge});
    if (p.rho.n > 0 && it != inverted.end())
      errs.push_back(std::abs(p.rho.value / it->second - 1));
  }
  return Errors(std::move(errs));
}

std::vector<const Model*> Chosen(const FitOptions& o) {
  std::vector<const Model*> chosen;
  for (const Model& m : Models())
    if (o.models.empty() ||
        std::find(o.models.begin(), o.models.end(), m.name) != o.models.end())
      chosen.push_back(&m);
  for (const std::string& name : o.models)
    if (!FindModel(name))
      throw std::invalid_argument("unknown model '" + name + "': one of " +
                                  ModelNames());
  return chosen;
}

std::vector<double> Times(const MeasuredGraph& g, int run) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(g.graph.edge_count()));
  for (int i = 0; i < g.graph.edge_count(); ++i)
    t.push_back(MeasuredSeconds(g, run, i));
  return t;
}

// The size most static-synchronous graphs of two or more edges share.
std::int64_t PenaltyBytes(const ContendData& d) {
  std::map<std::int64_t, int> count;
  for (const MeasuredGraph& g : d.graphs)
    if (g.graph.edge_count() > 1 && g.StaticSynchronous())
      ++count[g.edges[0].bytes];
  std::int64_t best = 0;
  for (const auto& [bytes, n] : count)
    if (best == 0 || n > count[best]) best = bytes;
  return best;
}

// A penalty is inversely proportional to alpha: the interval over runs
// widened by alpha's relative half-width, in quadrature (independent).
Interval WithAlpha(Interval rho, const Interval& alpha) {
  if (rho.n < 2) return rho;
  const double rel = (alpha.high - alpha.low) / 2 / alpha.value;
  const double half = std::hypot((rho.high - rho.low) / 2, rho.value * rel);
  rho.low = rho.value - half;
  rho.high = rho.value + half;
  return rho;
}

// Every run of graph `gi` inverted; later steps from `shapes`.
std::vector<EdgePenalty> InvertGraph(const ContendData& d, int gi,
                                     const Interval& alpha_interval,
                                     const Penalties& shapes,
                                     const FitOptions& o) {
  const double alpha = alpha_interval.value;
  const MeasuredGraph& g = d.graphs[gi];
  const int n = g.graph.edge_count();
  const double bytes = static_cast<double>(g.edges[0].bytes);
  std::vector<std::vector<double>> rho(n), moved(n);
  int inconsistent = 0;
  for (std::size_t r = 0; r < g.runs.size(); ++r) {
    try {
      const Inversion inv = Invert(g.graph, Times(g, static_cast<int>(r)),
                                   bytes, alpha, shapes, o.tolerance);
      for (int i = 0; i < n; ++i) {
        rho[i].push_back(inv.rho1[i]);
        moved[i].push_back(inv.step1_bytes[i]);
      }
    } catch (const std::domain_error&) {
      ++inconsistent;
    }
  }
  std::vector<EdgePenalty> out;
  for (int i = 0; i < n; ++i) {
    EdgePenalty p{
        gi,           i, WithAlpha(TInterval(rho[i]), alpha_interval), 0,
        inconsistent, ""};
    const Interval step1 = TInterval(moved[i]);
    p.amplification = step1.value > 0 ? bytes / step1.value : 0;
    const double half = (p.rho1.high - p.rho1.low) / 2;
    char text[96];
    if (p.rho1.n == 0) {
      std::snprintf(text, sizeof text, "no run could be inverted");
    } else if (inconsistent > 0) {
      std::snprintf(text, sizeof text, "%d runs could not be inverted",
                    inconsistent);
    } else if (p.rho1.n < 2) {
      std::snprintf(text, sizeof text, "one run: no interval");
    } else if (p.amplification > o.max_amplification) {
      std::snprintf(text, sizeof text, "amplification %.2f > %.2f",
                    p.amplification, o.max_amplification);
    } else if (half > o.max_rel_halfwidth * p.rho1.value) {
      std::snprintf(text, sizeof text, "interval +-%.1f%% > +-%.1f%%",
                    100 * half / p.rho1.value, 100 * o.max_rel_halfwidth);
    } else {
      text[0] = '\0';
    }
    p.flag = text;
    out.push_back(std::move(p));
  }
  return out;
}

void InvertAll(const ContendData& d, const Penalties& later, FitResult* fit,
               const FitOptions& o) {
  fit->penalty_bytes = PenaltyBytes(d);
  const double alpha = fit->alpha.value;
  MeasuredShapes shapes(static_cast<double>(fit->penalty_bytes), alpha, later,
                        o.tolerance);
  std::vector<int> inverted;
  for (std::size_t gi = 0; gi < d.graphs.size(); ++gi) {
    const MeasuredGraph& g = d.graphs[gi];
    const bool one_edge = g.graph.edge_count() == 1;
    if (one_edge && g.edges[0].bytes != fit->penalty_bytes) continue;
    if (!g.StaticSynchronous()) {
      fit->notes.push_back(g.name + ": not inverted (not static-synchronous)");
      continue;
    }
    if (g.edges[0].bytes != fit->penalty_bytes) {
      fit->notes.push_back(g.name + ": not inverted (" +
                           std::to_string(g.edges[0].bytes) +
                           " bytes per edge, the inverted graphs have " +
                           std::to_string(fit->penalty_bytes) + ")");
      continue;
    }
    std::vector<double> medians;
    for (int i = 0; i < g.graph.edge_count(); ++i) {
      std::vector<double> t;
      for (std::size_t r = 0; r < g.runs.size(); ++r)
        t.push_back(MeasuredSeconds(g, static_cast<int>(r), i));
      medians.push_back(Median(t));
    }
    shapes.Add(g.graph, medians);
    if (!one_edge) inverted.push_back(static_cast<int>(gi));
  }
  for (const int gi : inverted)
    for (EdgePenalty& p : InvertGraph(d, gi, fit->alpha, shapes, o))
      fit->penalties.push_back(std::move(p));
}

}  // namespace

double MeasuredSeconds(const MeasuredGraph& g, int run, int edge) {
  return static_cast<double>(g.runs[run].edges[edge].recv_end_ns -
                             g.edges[edge].start_offset_ns) *
         1e-9;
}

std::vector<double> PenaltyCache::Get(const Model& m, const Graph& g) {
  std::string why;
  const auto canonical = Canonicalize(g, &why);
  if (!canonical) return m.penalties(g);
  auto key = std::make_pair(std::string(m.name), canonical->form);
  auto it = memo_.find(key);
  if (it == memo_.end()) {
    std::vector<double> rho;
    const std::vector<double> own = m.penalties(g);
    for (const int e : canonical->edge_order) rho.push_back(own[e]);
    it = memo_.emplace(std::move(key), std::move(rho)).first;
  }
  std::vector<double> rho(g.edge_count());
  for (std::size_t k = 0; k < it->second.size(); ++k)
    rho[canonical->edge_order[k]] = it->second[k];
  return rho;
}

Penalties PenaltyCache::Of(const Model& m) {
  return [this, &m](const Graph& g) { return Get(m, g); };
}

FitResult Fit(const ContendData& d, const FitOptions& o) {
  if (!(o.tolerance >= 0) || o.tolerance >= 1)
    throw std::invalid_argument("the end-group tolerance must be in [0, 1)");
  if (!o.later_model.empty() && !FindModel(o.later_model))
    throw std::invalid_argument("unknown model '" + o.later_model +
                                "': one of " + ModelNames());
  const std::vector<const Model*> chosen = Chosen(o);
  if (chosen.empty()) throw std::invalid_argument("no model to compare");
  PenaltyCache own;
  PenaltyCache* cache = o.cache ? o.cache : &own;
  FitResult fit;
  fit.alpha = FitAlpha(d);
  for (const Model* m : chosen)
    fit.models.push_back(Score(d, *m, fit.alpha.value, cache));
  std::sort(
      fit.models.begin(), fit.models.end(),
      [](const ModelScore& a, const ModelScore& b) { return a.aicc < b.aicc; });
  for (ModelScore& m : fit.models) m.delta_aicc = m.aicc - fit.models[0].aicc;
  fit.later_model =
      o.later_model.empty() ? std::string(fit.models[0].name) : o.later_model;
  InvertAll(d, cache->Of(*FindModel(fit.later_model)), &fit, o);
  for (ModelScore& m : fit.models)
    ScorePenalties(d, fit.penalties, *FindModel(m.name), cache, &m);
  std::vector<MeasuredPenalty> clean;
  for (const EdgePenalty& p : fit.penalties)
    if (p.flag.empty())
      clean.push_back({&d.graphs[p.graph].graph, p.edge, p.rho1.value,
                       (p.rho1.high - p.rho1.low) / 2 / p.rho1.value});
  fit.rule_weights = FitRuleWeights(clean);
  fit.steady = SteadyPenalties(d);
  for (ModelScore& m : fit.models)
    m.steady = SteadyAgainst(d, fit.steady, *FindModel(m.name), cache);
  fit.steady_vs_inverted = SteadyAgainstInverted(fit);
  return fit;
}

}  // namespace verbsemu::contention
