#include "models/contention/rule_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/fit/nls.h"

namespace verbsemu::contention {
namespace {

constexpr double kMinRelHalfWidth = 0.01;
constexpr double kMaxWeight = 10;
// A weight this close to a bound is at it.
constexpr double kBoundTol = 1e-6;

struct Point {
  const Graph* graph;
  int edge;
  double log_rho, weight;
};

std::vector<Point> Points(std::span<const MeasuredPenalty> measured) {
  std::vector<Point> points;
  for (const MeasuredPenalty& m : measured) {
    if (!(m.rho > 0)) continue;
    // NaN or below the floor: the floor.
    const double rel = m.rel_halfwidth >= kMinRelHalfWidth ? m.rel_halfwidth
                                                           : kMinRelHalfWidth;
    points.push_back({m.graph, m.edge, std::log(m.rho), 1 / (rel * rel)});
  }
  return points;
}

double Predict(const Point& p, RuleB reading, RuleWeights w) {
  return std::log(Mm2011Penalties(*p.graph, reading, w)[p.edge]);
}

// How many points a weight enters: their penalty moves when it doubles.
int Entering(const std::vector<Point>& points, RuleB reading, bool b) {
  const RuleWeights doubled = b ? RuleWeights{2, 1} : RuleWeights{1, 2};
  return static_cast<int>(
      std::count_if(points.begin(), points.end(), [&](const Point& p) {
        return std::abs(Predict(p, reading, doubled) -
                        Predict(p, reading, {})) > 1e-12;
      }));
}

double Rms(const std::vector<Point>& points, RuleB reading, RuleWeights w) {
  double sum = 0;
  for (const Point& p : points) {
    const double r = p.log_rho - Predict(p, reading, w);
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}

RuleFit FitReading(const std::vector<Point>& points, RuleB reading) {
  RuleFit f;
  f.reading = reading;
  f.n = static_cast<int>(points.size());
  f.b.n = Entering(points, reading, true);
  f.c.n = Entering(points, reading, false);
  // The free weights, in order: b if it enters, then c if it does.
  std::vector<Weight*> free;
  if (f.b.n > 0) free.push_back(&f.b);
  if (f.c.n > 0) free.push_back(&f.c);
  auto weights = [&](std::span<const double> v) {
    RuleWeights w;
    std::size_t k = 0;
    if (f.b.n > 0) w.b = v[k++];
    if (f.c.n > 0) w.c = v[k];
    return w;
  };
  f.rms_log_err_paper = Rms(points, reading, {});
  f.rms_log_err = f.rms_log_err_paper;
  if (free.empty()) return f;
  std::vector<double> x, y, w;
  for (std::size_t i = 0; i < points.size(); ++i) {
    x.push_back(static_cast<double>(i));
    y.push_back(points[i].log_rho);
    w.push_back(points[i].weight);
  }
  fit::Model model;
  model.f = [&](double xi, std::span<const double> v) {
    return Predict(points[static_cast<std::size_t>(xi)], reading, weights(v));
  };
  const fit::Bounds bounds{std::vector<double>(free.size(), 0),
                           std::vector<double>(free.size(), kMaxWeight)};
  const fit::FitResult r =
      fit::FitNls(model, x, y, w, std::vector<double>(free.size(), 1), bounds);
  if (!r.ok()) return f;
  for (std::size_t j = 0; j < free.size(); ++j) {
    const double v = r.params[j];
    // At a bound the curvature says nothing of how far the weight could go.
    const bool at_bound = v <= kBoundTol || v >= kMaxWeight - kBoundTol;
    const double half =
        at_bound ? std::numeric_limits<double>::quiet_NaN() : r.HalfWidth95(j);
    const bool none = !std::isfinite(half);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    *free[j] = {v, none ? nan : v - half, none ? nan : v + half, free[j]->n};
  }
  f.rms_log_err = Rms(points, reading, weights(r.params));
  f.aicc = fit::Aicc(r.wssr, points.size(), free.size());
  return f;
}

}  // namespace

std::vector<RuleFit> FitRuleWeights(std::span<const MeasuredPenalty> measured) {
  const std::vector<Point> points = Points(measured);
  if (points.empty()) return {};
  return {FitReading(points, RuleB::kNode), FitReading(points, RuleB::kEdge)};
}

}  // namespace verbsemu::contention
