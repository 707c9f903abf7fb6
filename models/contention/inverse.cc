#include "models/contention/inverse.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace verbsemu::contention {
namespace {

void CheckInput(const Graph& g, const std::vector<double>& times_s,
                double bytes, double alpha) {
  if (times_s.size() != g.edges.size())
    throw std::invalid_argument(std::to_string(times_s.size()) + " times for " +
                                std::to_string(g.edges.size()) + " edges");
  if (!(bytes > 0) || !std::isfinite(bytes))
    throw std::invalid_argument("the size must be > 0");
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw std::invalid_argument("alpha must be > 0");
  for (double t : times_s)
    if (!(t > 0) || !std::isfinite(t))
      throw std::invalid_argument("a measured time must be > 0");
}

// Finish groups in time order: group index per edge, mean time per group.
std::pair<std::vector<int>, std::vector<double>> FinishGroups(
    const std::vector<double>& times_s, double rel_tol) {
  std::vector<int> order(times_s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return times_s[a] < times_s[b]; });
  std::vector<int> group(times_s.size());
  std::vector<double> sum;
  std::vector<int> count;
  double first = 0;
  for (int i : order) {
    if (sum.empty() || times_s[i] > first * (1 + rel_tol)) {
      first = times_s[i];
      sum.push_back(0);
      count.push_back(0);
    }
    group[i] = static_cast<int>(sum.size()) - 1;
    sum.back() += times_s[i];
    ++count.back();
  }
  for (size_t j = 0; j < sum.size(); ++j) sum[j] /= count[j];
  return {group, sum};
}

}  // namespace

Inversion Invert(const Graph& g, const std::vector<double>& times_s,
                 double bytes, double alpha, const Penalties& later,
                 double rel_tol) {
  CheckInput(g, times_s, bytes, alpha);
  const auto [group, end] = FinishGroups(times_s, rel_tol);
  const int n = g.edge_count();
  std::vector<double> later_bytes(n, 0.0);
  for (size_t j = 1; j < end.size(); ++j) {  // step j+1 of the paper
    std::vector<int> residual;
    for (int i = 0; i < n; ++i)
      if (group[i] >= static_cast<int>(j)) residual.push_back(i);
    const std::vector<double> rho = later(g.Subgraph(residual));
    if (rho.size() != residual.size())
      throw std::logic_error("residual penalties: wrong count");
    for (size_t k = 0; k < residual.size(); ++k)
      later_bytes[residual[k]] += (end[j] - end[j - 1]) / (alpha * rho[k]);
  }
  Inversion inv{std::vector<double>(n), std::vector<double>(n)};
  for (int i = 0; i < n; ++i) {
    inv.step1_bytes[i] = bytes - later_bytes[i];
    if (!(inv.step1_bytes[i] > 0))
      throw std::domain_error("edge " + std::to_string(i) + " (" +
                              g.labels[g.edges[i].src] + ">" +
                              g.labels[g.edges[i].dst] +
                              "): the later steps account for all its bytes");
    inv.rho1[i] = end[0] / (alpha * inv.step1_bytes[i]);
  }
  return inv;
}

MeasuredShapes::MeasuredShapes(double bytes, double alpha, Penalties fallback,
                               double rel_tol)
    : bytes_(bytes),
      alpha_(alpha),
      rel_tol_(rel_tol),
      fallback_(std::move(fallback)) {}

void MeasuredShapes::Add(const Graph& g, const std::vector<double>& times_s) {
  CheckInput(g, times_s, bytes_, alpha_);
  std::string why;
  auto c = Canonicalize(g, &why);
  if (!c) throw std::invalid_argument(why);
  shapes_[c->form] = Entry{g, times_s, std::move(c->edge_order)};
  memo_.clear();
}

std::vector<double> MeasuredShapes::CanonicalRho(
    const std::string& form) const {
  if (const auto m = memo_.find(form); m != memo_.end()) return m->second;
  const Entry& e = shapes_.at(form);
  const Inversion inv =
      Invert(e.graph, e.times_s, bytes_, alpha_, std::cref(*this), rel_tol_);
  std::vector<double> rho(e.edge_order.size());
  for (size_t k = 0; k < rho.size(); ++k) rho[k] = inv.rho1[e.edge_order[k]];
  memo_[form] = rho;
  return rho;
}

std::vector<double> MeasuredShapes::operator()(const Graph& g) const {
  std::string why;
  const auto c = Canonicalize(g, &why);
  if (!c || !shapes_.count(c->form)) return fallback_(g);
  const std::vector<double> canonical = CanonicalRho(c->form);
  std::vector<double> rho(canonical.size());
  for (size_t k = 0; k < rho.size(); ++k) rho[c->edge_order[k]] = canonical[k];
  return rho;
}

}  // namespace verbsemu::contention
