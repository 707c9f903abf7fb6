#include "models/contention/contentionfit_data.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "base/read_file.h"
#include "models/contention/compare.h"
#include "models/contention/contend_data.h"
#include "models/contention/penalty_file.h"

namespace verbsemu::contention {
namespace {

using nlohmann::json;

constexpr const char* kIntervalMethod =
    "95% Student t interval over the runs; penalties widened by alpha's "
    "relative half-width";

std::string Row(const char* fmt, auto... args) {
  char line[320];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

ContendData Load(const std::string& path) {
  std::string text, why;
  if (!base::ReadFileText(path, kMaxContendFileBytes, &text, &why))
    throw DataError("cannot read " + path + ": " + why);
  auto d = ParseContend(text, &why);
  if (!d) throw DataError(path + ": " + why);
  return std::move(*d);
}

void Save(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out)
    throw DataError("cannot write " + path + ": " + std::strerror(errno));
}

std::string Transfer(const Graph& g, int i) {
  return g.labels[g.edges[i].src] + ">" + g.labels[g.edges[i].dst];
}

void PrintModels(const FitResult& f, std::ostream& out) {
  out << Row("%-12s %6s %11s %9s %10s %9s %9s\n", "model", "n", "AICc", "dAICc",
             "median|err|", "max|err|", "<=15%");
  for (const ModelScore& m : f.models)
    out << Row("%-12s %6d %11.1f %9.1f %9.2f%% %8.2f%% %8.1f%%\n",
               std::string(m.name).c_str(), m.n, m.aicc, m.delta_aicc,
               100 * m.median_err, 100 * m.max_err, 100 * m.within15);
  out << "\nper edge, its runs' median time against the prediction: "
         "|err| median, p95, max\n";
  for (const ModelScore& m : f.models)
    out << Row("%-12s %6d edges %8.2f%% %8.2f%% %8.2f%%\n",
               std::string(m.name).c_str(), m.edges, 100 * m.edge_median_err,
               100 * m.edge_p95_err, 100 * m.edge_max_err);
  out << "\nthe unflagged first-step penalties against the model's: |err| "
         "median, max, share within 4%\n";
  for (const ModelScore& m : f.models)
    out << Row("%-12s %6d penalties %6.2f%% %8.2f%% %8.1f%%\n",
               std::string(m.name).c_str(), m.penalties,
               100 * m.penalty_median_err, 100 * m.penalty_max_err,
               100 * m.penalties_within4);
  out << "\nper edge count (the paper's Fig. 5): max over graphs of the mean "
         "|err| / max |err|\n"
      << Row("%-5s %6s %9s", "edges", "graphs", "transfers");
  for (const ModelScore& m : f.models)
    out << Row(" %15s", std::string(m.name).c_str());
  out << "\n";
  for (std::size_t k = 0; k < f.models[0].groups.size(); ++k) {
    const GroupScore& g = f.models[0].groups[k];
    out << Row("%-5d %6d %9d", g.edges, g.graphs, g.transfers);
    for (const ModelScore& m : f.models)
      out << Row(" %6.1f%% /%5.1f%%", 100 * m.groups[k].max_graph_mean_err,
                 100 * m.groups[k].max_err);
    out << "\n";
  }
  out << "\nper edge count, transfers within 15% of the prediction (the "
         "paper's validation)\n"
      << Row("%-5s %9s", "edges", "transfers");
  for (const ModelScore& m : f.models)
    out << Row(" %15s", std::string(m.name).c_str());
  out << "\n";
  for (std::size_t k = 0; k < f.models[0].groups.size(); ++k) {
    out << Row("%-5d %9d", f.models[0].groups[k].edges,
               f.models[0].groups[k].transfers);
    for (const ModelScore& m : f.models)
      out << Row(" %14.1f%%", 100.0 * m.groups[k].transfers_within15 /
                                  m.groups[k].transfers);
    out << "\n";
  }
}

const char* ReadingName(RuleB r) { return r == RuleB::kNode ? "node" : "edge"; }

std::string WeightText(const Weight& w) {
  if (w.n == 0) return "undetermined (1)";
  if (!w.has_interval()) return Row("%.3f (no interval)", w.value);
  return Row("%.3f [%.3f, %.3f]", w.value, w.low, w.high);
}

void PrintRuleWeights(const FitResult& f, std::ostream& out) {
  if (f.rule_weights.empty()) return;
  out << "\nthe rules' weights (rule (b)'s and rule (c)'s terms times w_b, "
         "w_c; the paper's are 1), fitted to the "
      << f.rule_weights[0].n
      << " first-step penalties with no flag; n: the penalties each enters\n"
      << Row("%-7s %-24s %4s %-24s %4s %12s %10s\n", "reading", "w_b (95%)",
             "n", "w_c (95%)", "n", "rms log err", "at (1, 1)");
  for (const RuleFit& r : f.rule_weights)
    out << Row("%-7s %-24s %4d %-24s %4d %11.2f%% %9.2f%%\n",
               ReadingName(r.reading), WeightText(r.b).c_str(), r.b.n,
               WeightText(r.c).c_str(), r.c.n, 100 * r.rms_log_err,
               100 * r.rms_log_err_paper);
}

json WeightJson(const Weight& w) {
  return {{"value", w.value}, {"low", w.low}, {"high", w.high}, {"n", w.n}};
}

json RuleWeightsJson(const FitResult& f) {
  json out = json::array();
  for (const RuleFit& r : f.rule_weights)
    out.push_back({{"reading", ReadingName(r.reading)},
                   {"n", r.n},
                   {"w_b", WeightJson(r.b)},
                   {"w_c", WeightJson(r.c)},
                   {"rms_log_err", r.rms_log_err},
                   {"rms_log_err_paper", r.rms_log_err_paper},
                   {"aicc", r.aicc}});
  return out;
}

void PrintPenalties(const ContendData& d, const FitResult& f,
                    std::ostream& out) {
  out << "\nfirst-step penalties (" << f.penalty_bytes
      << " bytes per edge; later steps: measured shapes, else " << f.later_model
      << "; " << kIntervalMethod << ")\n"
      << Row("%-26s %-4s %-8s %8s %8s %8s %4s %7s  %s\n", "graph", "edge",
             "transfer", "rho1", "low", "high", "n", "amplif", "flag");
  for (const EdgePenalty& p : f.penalties) {
    const MeasuredGraph& g = d.graphs[p.graph];
    out << Row("%-26s %-4d %-8s %8.4f %8.4f %8.4f %4d %7.3f  %s\n",
               g.name.substr(0, 26).c_str(), p.edge,
               Transfer(g.graph, p.edge).c_str(), p.rho1.value, p.rho1.low,
               p.rho1.high, p.rho1.n, p.amplification, p.flag.c_str());
  }
  for (const std::string& note : f.notes) out << "note: " << note << "\n";
}

json IntervalJson(const Interval& i) {
  return {{"value", i.value}, {"low", i.low}, {"high", i.high}, {"n", i.n}};
}

std::string ErrorsText(const PenaltyErrors& e) {
  return Row("%4d penalties %6.2f%% %8.2f%% %8.1f%%", e.n, 100 * e.median,
             100 * e.max, 100 * e.within3);
}

// Read from rates while every edge ran (contend --steady).
void PrintSteady(const ContendData& d, const FitResult& f, std::ostream& out) {
  const SteadyResult& s = f.steady;
  for (const std::string& note : s.notes) out << "note: " << note << "\n";
  if (s.penalties.empty()) return;
  out << Row("\nsteady penalties (rates while every edge runs; a lone edge "
             "%.6g B/s over %d runs): |err| median, max, share within 3%%\n",
             s.alone_Bps.value, s.alone_Bps.n)
      << Row("%-12s ", "inverted") << ErrorsText(f.steady_vs_inverted) << "\n";
  for (const ModelScore& m : f.models)
    out << Row("%-12s ", std::string(m.name).c_str()) << ErrorsText(m.steady)
        << "\n";
  out << Row("%-26s %-4s %-8s %8s %8s %8s %4s %7s\n", "graph", "edge",
             "transfer", "rho", "low", "high", "n", "without");
  for (const SteadyPenalty& p : s.penalties) {
    const MeasuredGraph& g = d.graphs[p.graph];
    out << Row("%-26s %-4d %-8s %8.4f %8.4f %8.4f %4d %7d\n",
               g.name.substr(0, 26).c_str(), p.edge,
               Transfer(g.graph, p.edge).c_str(), p.rho.value, p.rho.low,
               p.rho.high, p.rho.n, p.runs_without);
  }
}

json ErrorsJson(const PenaltyErrors& e) {
  return {{"n", e.n},
          {"median_err", e.median},
          {"max_err", e.max},
          {"within3", e.within3}};
}

json SteadyJson(const ContendData& d, const FitResult& f) {
  json penalties = json::array();
  for (const SteadyPenalty& p : f.steady.penalties) {
    const MeasuredGraph& g = d.graphs[p.graph];
    penalties.push_back({{"graph", g.name},
                         {"canonical", g.canonical},
                         {"edge", p.edge},
                         {"transfer", Transfer(g.graph, p.edge)},
                         {"rho", IntervalJson(p.rho)},
                         {"runs_without", p.runs_without}});
  }
  return {{"alone_Bps", IntervalJson(f.steady.alone_Bps)},
          {"penalties", penalties},
          {"vs_inverted", ErrorsJson(f.steady_vs_inverted)},
          {"notes", f.steady.notes}};
}

json FitJson(const ContendData& d, const FitResult& f) {
  json models = json::array(), penalties = json::array();
  for (const ModelScore& m : f.models) {
    json groups = json::array();
    for (const GroupScore& g : m.groups)
      groups.push_back({{"edges", g.edges},
                        {"graphs", g.graphs},
                        {"transfers", g.transfers},
                        {"max_graph_mean_err", g.max_graph_mean_err},
                        {"max_err", g.max_err},
                        {"transfers_within15", g.transfers_within15}});
    models.push_back({{"name", m.name},
                      {"n", m.n},
                      {"rss", m.rss},
                      {"aicc", m.aicc},
                      {"delta_aicc", m.delta_aicc},
                      {"median_err", m.median_err},
                      {"max_err", m.max_err},
                      {"within15", m.within15},
                      {"edges", m.edges},
                      {"edge_median_err", m.edge_median_err},
                      {"edge_p95_err", m.edge_p95_err},
                      {"edge_max_err", m.edge_max_err},
                      {"penalties", m.penalties},
                      {"penalty_median_err", m.penalty_median_err},
                      {"penalty_max_err", m.penalty_max_err},
                      {"penalties_within4", m.penalties_within4},
                      {"steady", ErrorsJson(m.steady)},
                      {"groups", groups}});
  }
  for (const EdgePenalty& p : f.penalties) {
    const MeasuredGraph& g = d.graphs[p.graph];
    penalties.push_back({{"graph", g.name},
                         {"canonical", g.canonical},
                         {"edge", p.edge},
                         {"transfer", Transfer(g.graph, p.edge)},
                         {"rho1", IntervalJson(p.rho1)},
                         {"amplification", p.amplification},
                         {"inconsistent_runs", p.inconsistent},
                         {"flag", p.flag}});
  }
  return {{"schema", "verbsemu.contentionfit/1"},
          {"alpha_s_per_byte", IntervalJson(f.alpha)},
          {"interval", kIntervalMethod},
          {"best", f.models[0].name},
          {"models", models},
          {"later_model", f.later_model},
          {"penalty_bytes", f.penalty_bytes},
          {"penalties", penalties},
          {"rule_weights", RuleWeightsJson(f)},
          {"steady", SteadyJson(d, f)},
          {"notes", f.notes}};
}

FitResult FitOrSay(const ContendData& d, const FitOptions& o) {
  try {
    return Fit(d, o);
  } catch (const std::invalid_argument& e) {
    throw DataError(e.what());
  }
}

// The measured penalties of every graph none of whose penalties is
// flagged, by shape (the first graph of a shape), in canonical edge order;
// below 1 (noise) as 1. *poor counts the graphs left out.
std::map<std::string, std::vector<double>> ExactShapes(const ContendData& d,
                                                       const FitResult& f,
                                                       int* poor) {
  std::map<int, std::vector<const EdgePenalty*>> by_graph;
  for (const EdgePenalty& p : f.penalties) by_graph[p.graph].push_back(&p);
  std::map<std::string, std::vector<double>> shapes;
  for (const auto& [gi, edges] : by_graph) {
    if (std::any_of(edges.begin(), edges.end(),
                    [](const EdgePenalty* p) { return !p->flag.empty(); })) {
      ++*poor;
      continue;
    }
    const MeasuredGraph& g = d.graphs[gi];
    std::string why;
    const auto canonical = Canonicalize(g.graph, &why);
    if (!canonical || shapes.contains(g.canonical)) continue;
    std::vector<double> rho;
    for (const int e : canonical->edge_order)
      rho.push_back(std::max(1.0, edges[e]->rho1.value));
    shapes.emplace(g.canonical, std::move(rho));
  }
  return shapes;
}

void PrintRatios(const ContendData& other, const Comparison& c,
                 std::ostream& out) {
  out << Row("%-26s %-8s %12s %12s %8s\n", "graph", "transfer", "base_s",
             "other_s", "ratio");
  for (const EdgeRatio& r : c.edges) {
    const MeasuredGraph& g = other.graphs[r.other_graph];
    out << Row("%-26s %-8s %12.6f %12.6f %8.4f\n", g.name.substr(0, 26).c_str(),
               Transfer(g.graph, r.edge).c_str(), r.base_s, r.other_s, r.ratio);
  }
  out << Row(
      "\n%zu edges of graphs in both: ratio median %.4f, min %.4f, "
      "max %.4f\n",
      c.edges.size(), c.median, c.min, c.max);
  if (c.only_base > 0 || c.only_other > 0)
    out << c.only_base << " graphs only in the base, " << c.only_other
        << " only in the other (not compared)\n";
}

void PrintVerdict(const ContendData& other, const Comparison& c,
                  const DataRequest& r, const std::vector<EdgeRatio>& outside,
                  std::ostream& out) {
  out << Row("expected %.4g ± %.4g: ", r.expect, r.within);
  if (outside.empty()) {
    out << "every edge within\n";
    return;
  }
  const EdgeRatio& w = outside.front();
  const MeasuredGraph& g = other.graphs[w.other_graph];
  out << outside.size() << " of " << c.edges.size()
      << " edges outside, the farthest " << g.name << " "
      << Transfer(g.graph, w.edge) << Row(" at %.4f\n", w.ratio);
}

json CompareJson(const ContendData& other, const Comparison& c,
                 const DataRequest& r, std::size_t outside) {
  json edges = json::array();
  for (const EdgeRatio& e : c.edges) {
    const MeasuredGraph& g = other.graphs[e.other_graph];
    edges.push_back({{"graph", g.name},
                     {"edge", e.edge},
                     {"transfer", Transfer(g.graph, e.edge)},
                     {"base_s", e.base_s},
                     {"other_s", e.other_s},
                     {"ratio", e.ratio}});
  }
  json j = {{"schema", "verbsemu.contentionfit.compare/1"},
            {"base", r.file},
            {"other", r.other},
            {"edges", edges},
            {"median", c.median},
            {"min", c.min},
            {"max", c.max},
            {"only_base", c.only_base},
            {"only_other", c.only_other}};
  if (r.expect > 0)
    j["expect"] = {
        {"ratio", r.expect}, {"within", r.within}, {"outside", outside}};
  return j;
}

}  // namespace

int RunCompare(const DataRequest& r, std::ostream& out) {
  const ContendData base = Load(r.file), other = Load(r.other);
  const Comparison c = Compare(base, other);
  if (c.edges.empty())
    throw DataError("no graph of " + r.other + " was measured in " + r.file +
                    " (graphs match by name, edges, sizes and starts)");
  PrintRatios(other, c, out);
  std::vector<EdgeRatio> outside;
  if (r.expect > 0) {
    outside = Outside(c, r.expect, r.within);
    PrintVerdict(other, c, r, outside, out);
  }
  if (!r.json_out.empty())
    Save(r.json_out, CompareJson(other, c, r, outside.size()).dump(1) + "\n");
  return outside.empty() ? 0 : 1;
}

void RunFit(const DataRequest& r, std::ostream& out) {
  const ContendData d = Load(r.file);
  const FitResult f = FitOrSay(d, r.fit);
  out << Row("alpha %.6g s/B (%.6g B/s), 95%% interval %.6g .. %.6g, %d "
             "runs of one-edge graphs\n",
             f.alpha.value, 1 / f.alpha.value, f.alpha.low, f.alpha.high,
             f.alpha.n)
      << "best model by AICc: " << f.models[0].name << "\n\n";
  PrintModels(f, out);
  PrintRuleWeights(f, out);
  PrintPenalties(d, f, out);
  PrintSteady(d, f, out);
  if (!r.json_out.empty()) Save(r.json_out, FitJson(d, f).dump(1) + "\n");
}

void RunExport(const DataRequest& r, std::ostream& out) {
  const ContendData d = Load(r.file);
  FitOptions o = r.fit;
  if (!r.model.empty() && o.later_model.empty()) o.later_model = r.model;
  const FitResult f = FitOrSay(d, o);
  PenaltyFile file;
  file.model = FindModel(r.model.empty() ? f.models[0].name : r.model);
  int poor = 0;
  file.shapes = ExactShapes(d, f, &poor);
  Save(r.out, WritePenaltyFile(file));
  out << "wrote " << r.out << ": model " << file.model->name << ", "
      << file.shapes.size() << " measured shapes";
  if (poor > 0)
    out << " (" << poor
        << " graphs with poorly determined penalties left to the model)";
  out << "\n";
}

void RunSynth(const DataRequest& r, std::ostream& out) {
  ContendData d;
  try {
    d = Synthesize(r.synth);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (r.out.empty()) {
    out << WriteContend(d);
  } else {
    Save(r.out, WriteContend(d));
  }
}

}  // namespace verbsemu::contention
