// Two verbsbench runs side by side (Confidence §IV's ORIG vs NEW): the points
// both measured, matched by identity, each with its quantiles' ratios
// NEW/BASE and the KS and Wasserstein-1 distances of its two distributions
// on a shared bin layout; and the thresholds that make it a regression gate.
#ifndef VERBSBENCH_COMPARE_COMPARE_H_
#define VERBSBENCH_COMPARE_COMPARE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verbsbench/compare/distance.h"
#include "verbsbench/compare/run.h"

namespace verbsbench::compare {

// Where the distances come from: the samples (--raw runs) when both runs
// kept every sample of the point, else the stored histogram bins (auto);
// or insist on one.
enum class Source { kAuto, kRaw, kBins };

// --distance-from's word (auto, raw or bins) as a Source; throws
// std::invalid_argument "bad --distance-from 'WORD' (auto, raw or bins)".
Source ParseSource(const std::string& word);

// The quantiles compared, in table order: min, p1, p5, p25, p50, p75, p90,
// p95, p99, p999, max, mean.
const std::vector<std::string>& QuantileNames();
// A quantile's name as QuantileNames spells it ("median" is "p50"), or
// nothing when there is no such quantile.
std::optional<std::string> CanonicalQuantile(std::string_view name);

struct QuantileRatio {
  std::string name;
  double base_ns = 0;
  double new_ns = 0;
  double ratio = 0;  // NEW / BASE; NaN when BASE is not above 0
  // "stats": as both runs wrote it (within the run histogram's 0.5%);
  // "raw": the exact order statistic of the samples; "bins": interpolated
  // in the shared bins.
  std::string from;
};

struct PointComparison {
  std::string id;
  Identity identity;
  std::array<uint64_t, 2> count{};         // samples, BASE and NEW
  std::array<uint64_t, 2> observations{};  // what the p-value counts
  std::vector<QuantileRatio> quantiles;    // in QuantileNames' order
  std::string from;                        // "raw" or "bins"
  SharedBins shared;
  double ks = 0;
  double ks_pvalue = 1;
  double wasserstein_ns = 0;

  const QuantileRatio* Quantile(std::string_view name) const;
};

struct Comparison {
  std::string base_label, new_label, mode;
  std::vector<PointComparison> points;  // in BASE's order
  std::vector<std::string> only_in_base, only_in_new;
};

// Throws InputError when the modes differ, no point is in common, or
// Source::kRaw is asked of a point without every sample.
Comparison Compare(const Run& base, const Run& next,
                   Source source = Source::kAuto);

// Limits; a value above one is a regression (every sample is a time).
struct Thresholds {
  std::map<std::string, double> max_ratio;  // by QuantileNames' name
  std::optional<double> max_ks;
  std::optional<double> max_wasserstein_ns;
  bool empty() const {
    return max_ratio.empty() && !max_ks && !max_wasserstein_ns;
  }
  nlohmann::json ToJson() const;
};

struct Crossing {
  std::string point;
  std::string check;  // "p50 ratio", "KS", "Wasserstein"
  double value = 0;
  double limit = 0;
  std::string Line() const;  // "lat send size 8: p50 ratio 1.843 > 1.1"
};

// Every threshold a point crosses, point by point. A ratio that cannot be
// computed (BASE not above 0) crosses its limit: a gate fails closed.
std::vector<Crossing> Judge(const Comparison& c, const Thresholds& t);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_COMPARE_H_
