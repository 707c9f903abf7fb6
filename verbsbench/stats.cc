#include "verbsbench/stats.h"

#include <algorithm>

namespace verbsbench {

Recorder::Recorder(uint64_t cycle_length, uint64_t raw_limit)
    : cycle_length_(cycle_length ? cycle_length : 1), raw_limit_(raw_limit) {}

void Recorder::Add(double ns) {
  histogram_.Add(ns);
  if (raw_.size() < raw_limit_) raw_.push_back(ns);
  if (in_cycle_ == 0 || ns < cycle_min_) cycle_min_ = ns;
  if (++in_cycle_ == cycle_length_) {
    cycle_mins_.push_back(cycle_min_);
    in_cycle_ = 0;
  }
}

void Recorder::Finish() {
  if (in_cycle_ > 0) {
    cycle_mins_.push_back(cycle_min_);
    in_cycle_ = 0;
  }
}

void Recorder::Merge(const Recorder& other) {
  histogram_.Merge(other.histogram_);
  Finish();
  cycle_mins_.insert(cycle_mins_.end(), other.cycle_mins_.begin(),
                     other.cycle_mins_.end());
  if (other.in_cycle_ > 0) cycle_mins_.push_back(other.cycle_min_);
  for (double v : other.raw_) {
    if (raw_.size() >= raw_limit_) break;
    raw_.push_back(v);
  }
}

nlohmann::json Recorder::ToJson() const {
  Recorder copy = *this;
  copy.Finish();
  return {{"cycle_length", cycle_length_},
          {"histogram", copy.histogram_.ToJson()},
          {"cycle_mins", copy.cycle_mins_},
          {"raw", copy.raw_}};
}

Recorder Recorder::FromJson(const nlohmann::json& j) {
  Recorder r(j.at("cycle_length").get<uint64_t>(), j.at("raw").size());
  r.histogram_ = LogHistogram::FromJson(j.at("histogram"));
  r.cycle_mins_ = j.at("cycle_mins").get<std::vector<double>>();
  r.raw_ = j.at("raw").get<std::vector<double>>();
  return r;
}

nlohmann::json HistogramJson(const LogHistogram& h, int merge) {
  nlohmann::json bins = nlohmann::json::array();
  const double n = static_cast<double>(h.count());
  uint64_t cumulative = 0;
  for (const auto& b : h.Bins(merge)) {
    cumulative += b.count;
    const double width = b.hi - b.lo;
    const double frac = static_cast<double>(b.count) / n;
    bins.push_back({{"lo_ns", b.lo},
                    {"hi_ns", b.hi},
                    {"count", b.count},
                    {"frac", frac},
                    {"pdf", width > 0 ? frac / width : 0.0},
                    {"cdf", static_cast<double>(cumulative) / n}});
  }
  return bins;
}

nlohmann::json StatsJson(const LogHistogram& h,
                         const std::vector<double>& cycle_mins,
                         int histogram_merge) {
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& m : h.Modes()) {
    modes.push_back({{"value_ns", m.value}, {"fraction", m.fraction}});
  }
  nlohmann::json j = {{"count", h.count()},
                      {"min_ns", h.min()},
                      {"p50_ns", h.Quantile(0.50)},
                      {"p90_ns", h.Quantile(0.90)},
                      {"p99_ns", h.Quantile(0.99)},
                      {"p999_ns", h.Quantile(0.999)},
                      {"max_ns", h.max()},
                      {"mean_ns", h.mean()},
                      {"stdev_ns", h.stdev()},
                      {"skew", h.skewness()},
                      {"kurtosis", h.kurtosis()},
                      {"quantile_relative_error", h.relative_error()},
                      {"modes", modes},
                      {"multimodal", modes.size() > 1},
                      {"cycle_min_ns", cycle_mins},
                      {"histogram", HistogramJson(h, histogram_merge)}};
  if (!cycle_mins.empty()) {
    LogHistogram mins(h.relative_error());
    for (double v : cycle_mins) mins.Add(v);
    j["cycle_min_summary"] = {{"min_ns", mins.min()},
                              {"p50_ns", mins.Quantile(0.5)},
                              {"max_ns", mins.max()}};
  }
  return j;
}

nlohmann::json StatsJson(const Recorder& r, int histogram_merge) {
  Recorder copy = r;
  copy.Finish();
  return StatsJson(copy.histogram(), copy.cycle_minimums(), histogram_merge);
}

}  // namespace verbsbench
