// Streaming log-binned histogram with bounded memory (Confidence, ORNL; the
// bucket layout is DDSketch's): every quantile it reports is within
// `relative_error` of the exact order statistic, whatever the sample count.
#ifndef VERBSBENCH_HISTOGRAM_H_
#define VERBSBENCH_HISTOGRAM_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verbsbench {

// Peaks closer than this (relative gap) are one mode unless asked otherwise
// (--mode-resolution). 0.2 searches bins 10% wide, as verbsbench always did.
inline constexpr double kDefaultModeResolution = 0.20;
// The finest mode resolution that means anything: peaks searched in single
// bins of the default layout (relative error 0.5%, bins 1% wide).
inline constexpr double kFinestModeResolution = 0.02;

class LogHistogram {
 public:
  // Values below `min_value` share one underflow bin (those within its
  // bin's width below it fall into the first regular bin); values above
  // `max_value` share one overflow bin (quantiles there are clamped to the
  // exact min/max, which are always tracked).
  explicit LogHistogram(double relative_error = 0.005, double min_value = 1.0,
                        double max_value = 1e12);

  void Add(double value) { Add(value, 1); }
  // Adds `n` samples of the same value (one bin lookup).
  void Add(double value, uint64_t n);
  // Adds every sample of `other`; both must have the same layout.
  void Merge(const LogHistogram& other);
  void Clear();

  uint64_t count() const { return count_; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return count_ ? max_ : 0.0; }
  double mean() const { return count_ ? mean_ : 0.0; }
  double variance() const;  // population variance, exact (streamed moments)
  double stdev() const;
  double skewness() const;
  double kurtosis() const;  // excess kurtosis (0 for a normal distribution)
  double relative_error() const { return alpha_; }

  // Nearest-rank quantile: the value of rank ceil(q * n) (1-based), to within
  // the relative error. q in [0, 1].
  double Quantile(double q) const;

  struct Bin {
    double lo;  // inclusive lower edge
    double hi;  // upper edge
    uint64_t count;
  };
  // Non-empty bins in increasing order. `merge` > 1 joins that many adjacent
  // fine bins into one (coarser output for plots).
  std::vector<Bin> Bins(int merge = 1) const;

  struct Mode {
    double value;     // centre of the peak bin
    double fraction;  // share of samples in the peak's basin
  };
  // Peaks of the distribution on a log scale: peaks closer than
  // `resolution` (relative gap) are one mode. They are searched in bins of
  // half that relative width (at least the layout's own), and two peaks need
  // a bin between them whose count drops below half the smaller one's. A
  // peak counts if its bin and neighbours hold >= min_fraction of samples.
  std::vector<Mode> Modes(double resolution = kDefaultModeResolution,
                          double min_fraction = 0.05) const;

  // Lossless serialisation (used to ship peers' histograms to the root).
  nlohmann::json ToJson() const;
  static LogHistogram FromJson(const nlohmann::json& j);

 private:
  int IndexOf(double value) const;
  double LowerEdge(int index) const;
  double UpperEdge(int index) const;
  double Estimate(int index) const;
  // Folds in a block of nb samples with the given mean and central moments
  // (Chan et al.'s pairwise combination).
  void CombineMoments(double nb, double mean_b, double m2b, double m3b,
                      double m4b);

  double alpha_;
  double gamma_;
  double log_gamma_;
  double min_value_;
  double underflow_hi_;  // the underflow bin's upper edge, below min_value
  double max_value_;
  int offset_;  // index of the bin holding min_value
  // counts_[0] = underflow, counts_.back() = overflow.
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double min_ = 0;
  double max_ = 0;
  double mean_ = 0;
  double m2_ = 0;
  double m3_ = 0;
  double m4_ = 0;
};

}  // namespace verbsbench

#endif  // VERBSBENCH_HISTOGRAM_H_
