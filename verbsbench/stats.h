// Empirical distributions of a run (Confidence §II): a streaming histogram of
// every sample, the run split into cycles with each cycle's minimum kept (a
// distribution of its own), and the summary statistics written into the
// JSON "stats" object.
#ifndef VERBSBENCH_STATS_H_
#define VERBSBENCH_STATS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "verbsbench/histogram.h"
#include "verbsbench/timer.h"

namespace verbsbench {

class Recorder {
 public:
  // `cycle_length` samples make one cycle; `raw_limit` samples are kept
  // verbatim (0: none).
  explicit Recorder(uint64_t cycle_length = 1000, uint64_t raw_limit = 0);

  // One timed interval, one sample; `migrated`: the thread changed CPU
  // inside it.
  void Add(double ns, bool migrated = false);
  // One timed interval that covered `n` messages which cannot be told apart
  // (a completion batch): n samples of `ns_each`, the interval's equal share.
  void AddShares(double ns_each, uint64_t n, bool migrated = false);
  // Closes a partial cycle. Called by the writers; idempotent.
  void Finish();
  void Merge(const Recorder& other);

  const LogHistogram& histogram() const { return histogram_; }
  const std::vector<double>& cycle_minimums() const { return cycle_mins_; }
  const std::vector<double>& raw() const { return raw_; }
  uint64_t count() const { return histogram_.count(); }
  // Timed intervals the samples came from (Add and AddShares calls).
  uint64_t observations() const { return observations_; }
  // Samples whose interval began and ended on different CPUs.
  uint64_t migrated() const { return migrated_; }

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
  uint64_t observations_ = 0;
  uint64_t migrated_ = 0;
};

// bw's samples. A poll that retires completions ends one observable
// interval, from the previous such poll (or the stream's start); the
// messages it retired (cq_mod per signaled completion, or more) complete
// inside it indistinguishably, so each gets an equal share: one sample per
// message, whose sum is the stream's time to its last completion.
class CompletionIntervals {
 public:
  CompletionIntervals(const Timer& timer, Recorder& rec, const Stamp& start)
      : timer_(timer), rec_(rec), last_(start) {}
  void Completed(const Stamp& now, uint64_t messages) {
    if (messages == 0) return;
    rec_.AddShares(timer_.TicksToNs(now.ticks - last_.ticks) /
                       static_cast<double>(messages),
                   messages, Migrated(last_, now));
    last_ = now;
  }

 private:
  const Timer& timer_;
  Recorder& rec_;
  Stamp last_;
};

// How a "stats" object is written.
struct StatsFormat {
  int histogram_merge = 4;  // fine bins per output bin
  double mode_resolution = kDefaultModeResolution;
};

// The "stats" object: min/p50/p90/p99/p999/max, mean, stdev, skew,
// kurtosis, count, modes, the binned PDF/CDF; from a Recorder also the
// observations, the migrated samples and the cycle minimums with their own
// distribution ("cycle_min": summary, modes and PDF/CDF).
nlohmann::json StatsJson(const LogHistogram& h, const StatsFormat& format = {});
nlohmann::json StatsJson(const Recorder& r, const StatsFormat& format = {});

// Bins with PDF (density per ns) and CDF.
nlohmann::json HistogramJson(const LogHistogram& h, int merge = 4);

}  // namespace verbsbench

#endif  // VERBSBENCH_STATS_H_
