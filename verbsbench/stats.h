// Empirical distributions of a run (Confidence §II): a streaming histogram of
// every sample, the run split into cycles with each cycle's minimum kept, and
// the summary statistics written into the JSON "stats" object.
#ifndef VERBSBENCH_STATS_H_
#define VERBSBENCH_STATS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "verbsbench/histogram.h"

namespace verbsbench {

class Recorder {
 public:
  // `cycle_length` samples make one cycle; `raw_limit` samples are kept
  // verbatim (0: none).
  explicit Recorder(uint64_t cycle_length = 1000, uint64_t raw_limit = 0);

  void Add(double ns);
  // Closes a partial cycle. Called by the writers; idempotent.
  void Finish();
  void Merge(const Recorder& other);

  const LogHistogram& histogram() const { return histogram_; }
  const std::vector<double>& cycle_minimums() const { return cycle_mins_; }
  const std::vector<double>& raw() const { return raw_; }
  uint64_t count() const { return histogram_.count(); }

  nlohmann::json ToJson() const;  // lossless (peers → root)
  static Recorder FromJson(const nlohmann::json& j);

 private:
  uint64_t cycle_length_;
  uint64_t raw_limit_;
  LogHistogram histogram_;
  std::vector<double> cycle_mins_;
  std::vector<double> raw_;
  uint64_t in_cycle_ = 0;
  double cycle_min_ = 0;
};

// The "stats" object: min/p50/p90/p99/p999/max, mean, stdev, skew,
// kurtosis, count, modes, cycle minimums and the binned PDF/CDF.
// `histogram_merge` joins that many fine bins per output bin.
nlohmann::json StatsJson(const LogHistogram& h,
                         const std::vector<double>& cycle_mins,
                         int histogram_merge = 4);
nlohmann::json StatsJson(const Recorder& r, int histogram_merge = 4);

// Bins with PDF (density per ns) and CDF.
nlohmann::json HistogramJson(const LogHistogram& h, int merge = 4);

}  // namespace verbsbench

#endif  // VERBSBENCH_STATS_H_
