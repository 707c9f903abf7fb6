#include "models/loggp/internal/loggp_synth.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "models/loggp/contract.h"
#include "models/loggp/derive.h"
#include "models/loggp/formulas.h"
#include "models/lop/contract.h"

namespace verbsemu::fit::synth {
namespace {

using nlohmann::json;
namespace lg = verbsbench::loggp;
namespace lk = verbsbench::loggp::key;

json Stat(double median) {
  return {{verbsbench::lop::key::kMinNs, median * 0.99},
          {verbsbench::lop::key::kMedianNs, median},
          {verbsbench::lop::key::kSamples, 1000}};
}

}  // namespace

const TrueSegment& Truth::SegmentOf(double size) const {
  if (segments.empty()) throw std::invalid_argument("no segments");
  const TrueSegment* seg = &segments.front();
  for (const TrueSegment& s : segments) {
    if (s.first_size <= size) seg = &s;
  }
  return *seg;
}

double Truth::TrueGap(double size) const {
  const TrueSegment& s = SegmentOf(size);
  return lg::GapModel(s.g, s.big_g, size);
}

double Truth::TrainGap(double size) const {
  return std::max(os, TrueGap(size));
}

double Truth::Prtt10(double size) const {
  return 2 * (os + latency + (size - 1) * SegmentOf(size).big_g + o_r);
}

std::vector<double> PowersOfTwo(double lo, double hi) {
  std::vector<double> out;
  for (double s = lo; s <= hi; s *= 2) out.push_back(s);
  return out;
}

json Run(const Truth& t) {
  std::mt19937 rng(t.seed);
  std::normal_distribution<double> normal(0, 1);
  const auto noisy = [&](double v) { return v * (1 + t.noise * normal(rng)); };
  json points = json::array();
  for (double size : t.sizes) {
    const double prtt_10 = t.Prtt10(size);
    const double delay = prtt_10;  // verbsbench's default d
    // A delay shorter than the gap leaves the train paced by the gap.
    const double delayed = std::max(t.os + delay, t.TrainGap(size));
    json p = {
        {lk::kOp, "send"},
        {lk::kSize, size},
        {lk::kInline, size <= 64},
        {lk::kDelayNs, delay},
        {lk::kPrtt10, Stat(noisy(prtt_10))},
        {lk::kPrttN0, Stat(noisy(prtt_10 + (t.n - 1) * t.TrainGap(size)))},
        {lk::kPrttNd, Stat(noisy(prtt_10 + (t.n - 1) * delayed))},
        {lk::kOr, Stat(noisy(t.o_r))}};
    p[lk::kDerived] = lg::DerivePoint(p, t.n);
    points.push_back(p);
  }
  return {{"tool", "verbsbench"},
          {"mode", lg::kSection},
          {"params", {{"n", t.n}, {"synthetic", true}, {"seed", t.seed}}},
          {"device", {{"name", "synthetic"}}},
          {lg::kSection,
           {{lk::kN, t.n},
            {lg::kPoints, points},
            {lg::kDefinitions, lg::Definitions()}}}};
}

}  // namespace verbsemu::fit::synth
