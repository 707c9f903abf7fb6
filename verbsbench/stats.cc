#include "verbsbench/stats.h"

#include <algorithm>

namespace verbsbench {

Recorder::Recorder(uint64_t cycle_length, uint64_t raw_limit)
    : cycle_length_(cycle_length ? cycle_length : 1), raw_limit_(raw_limit) {}

void Recorder::Add(double ns, bool migrated) { AddShares(ns, 1, migrated); }

void Recorder::AddShares(double ns_each, uint64_t n, bool migrated) {
  if (n == 0) return;
  histogram_.Add(ns_each, n);
  ++observations_;
  if (migrated) migrated_ += n;
  const uint64_t room = raw_.size() < raw_limit_ ? raw_limit_ - raw_.size() : 0;
  const uint64_t keep = std::min(n, room);
  raw_.insert(raw_.end(), keep, ns_each);
  // The n samples may fill this cycle and run into the next ones.
  for (uint64_t left = n; left > 0;) {
    const uint64_t take = std::min(left, cycle_length_ - in_cycle_);
    if (in_cycle_ == 0 || ns_each < cycle_min_) cycle_min_ = ns_each;
    in_cycle_ += take;
    left -= take;
    if (in_cycle_ == cycle_length_) {
      cycle_mins_.push_back(cycle_min_);
      in_cycle_ = 0;
    }
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
  observations_ += other.observations_;
  migrated_ += other.migrated_;
}

nlohmann::json Recorder::ToJson() const {
  Recorder copy = *this;
  copy.Finish();
  return {
      {"cycle_length", cycle_length_},  {"histogram", copy.histogram_.ToJson()},
      {"cycle_mins", copy.cycle_mins_}, {"raw", copy.raw_},
      {"observations", observations_},  {"migrated", migrated_}};
}

Recorder Recorder::FromJson(const nlohmann::json& j) {
  Recorder r(j.at("cycle_length").get<uint64_t>(), j.at("raw").size());
  r.histogram_ = LogHistogram::FromJson(j.at("histogram"));
  r.cycle_mins_ = j.at("cycle_mins").get<std::vector<double>>();
  r.raw_ = j.at("raw").get<std::vector<double>>();
  r.observations_ = j.at("observations").get<uint64_t>();
  r.migrated_ = j.at("migrated").get<uint64_t>();
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

namespace {

nlohmann::json ModesJson(const LogHistogram& h, double resolution) {
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& m : h.Modes(resolution)) {
    modes.push_back({{"value_ns", m.value}, {"fraction", m.fraction}});
  }
  return modes;
}

// The per-cycle minimums as a distribution of their own (Confidence bins
// them like every sample: their modes are the hardware's, without the
// software's noise above them).
nlohmann::json CycleMinJson(const std::vector<double>& cycle_mins,
                            double relative_error, const StatsFormat& format) {
  LogHistogram mins(relative_error);
  for (double v : cycle_mins) mins.Add(v);
  const nlohmann::json modes = ModesJson(mins, format.mode_resolution);
  return {{"count", mins.count()},
          {"min_ns", mins.min()},
          {"p50_ns", mins.Quantile(0.5)},
          {"p90_ns", mins.Quantile(0.9)},
          {"max_ns", mins.max()},
          {"mean_ns", mins.mean()},
          {"stdev_ns", mins.stdev()},
          {"modes", modes},
          {"multimodal", modes.size() > 1},
          {"histogram", HistogramJson(mins, format.histogram_merge)}};
}

}  // namespace

nlohmann::json StatsJson(const LogHistogram& h, const StatsFormat& format) {
  const nlohmann::json modes = ModesJson(h, format.mode_resolution);
  return {{"count", h.count()},
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
          {"mode_resolution", format.mode_resolution},
          {"modes", modes},
          {"multimodal", modes.size() > 1},
          {"histogram", HistogramJson(h, format.histogram_merge)}};
}

nlohmann::json StatsJson(const Recorder& r, const StatsFormat& format) {
  Recorder copy = r;
  copy.Finish();
  const std::vector<double>& mins = copy.cycle_minimums();
  nlohmann::json j = StatsJson(copy.histogram(), format);
  j["observations"] = copy.observations();
  j["migrated_samples"] = copy.migrated();
  j["cycle_min_ns"] = mins;
  if (!mins.empty()) {
    j["cycle_min"] =
        CycleMinJson(mins, copy.histogram().relative_error(), format);
    // The earlier summary, kept for readers of it.
    j["cycle_min_summary"] = {{"min_ns", j["cycle_min"]["min_ns"]},
                              {"p50_ns", j["cycle_min"]["p50_ns"]},
                              {"max_ns", j["cycle_min"]["max_ns"]}};
  }
  return j;
}

}  // namespace verbsbench
