#include "verbsbench/histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace verbsbench {

LogHistogram::LogHistogram(double relative_error, double min_value,
                           double max_value)
    : alpha_(relative_error), min_value_(min_value), max_value_(max_value) {
  if (!(relative_error > 0 && relative_error < 0.5) || !(min_value > 0) ||
      !(max_value > min_value)) {
    throw std::invalid_argument("LogHistogram: bad layout");
  }
  gamma_ = (1 + alpha_) / (1 - alpha_);
  log_gamma_ = std::log(gamma_);
  const int k_min =
      static_cast<int>(std::ceil(std::log(min_value) / log_gamma_));
  const int k_max =
      static_cast<int>(std::ceil(std::log(max_value) / log_gamma_));
  offset_ = k_min - 1;
  // The first regular bin's lower edge, so the bins tile the line: a bin
  // ending at min_value would leave the first regular bin a single point
  // when min_value is a power of gamma (1 ns is: found by compare_fuzz).
  underflow_hi_ = std::pow(gamma_, k_min - 1);
  counts_.assign(static_cast<size_t>(k_max - k_min) + 3, 0);
}

int LogHistogram::IndexOf(double value) const {
  if (!(value > underflow_hi_)) return 0;  // also catches NaN
  if (value > max_value_) return static_cast<int>(counts_.size()) - 1;
  int k = static_cast<int>(std::ceil(std::log(value) / log_gamma_));
  int index = k - offset_;
  // Guard against rounding at the edges of the range.
  return std::clamp(index, 1, static_cast<int>(counts_.size()) - 2);
}

double LogHistogram::LowerEdge(int index) const {
  if (index == 0) return std::min(0.0, min());
  if (index == static_cast<int>(counts_.size()) - 1) return max_value_;
  return std::pow(gamma_, index + offset_ - 1);
}

double LogHistogram::UpperEdge(int index) const {
  if (index == 0) return underflow_hi_;
  if (index == static_cast<int>(counts_.size()) - 1)
    return std::max(max_value_, max());
  return std::min(max_value_, std::pow(gamma_, index + offset_));
}

double LogHistogram::Estimate(int index) const {
  if (index == 0) return min();
  if (index == static_cast<int>(counts_.size()) - 1) return max();
  double v = 2 * std::pow(gamma_, index + offset_) / (gamma_ + 1);
  return std::clamp(v, min(), max());
}

void LogHistogram::Add(double value, uint64_t n) {
  if (std::isnan(value) || n == 0) return;
  counts_[static_cast<size_t>(IndexOf(value))] += n;
  if (count_ == 0) {
    min_ = max_ = value;
    mean_ = value;
    count_ = n;
    return;
  }
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  CombineMoments(static_cast<double>(n), value, 0, 0, 0);
  count_ += n;
}

void LogHistogram::CombineMoments(double nb, double mean_b, double m2b,
                                  double m3b, double m4b) {
  const double na = static_cast<double>(count_);
  const double n = na + nb;
  const double d = mean_b - mean_;
  const double d2 = d * d;
  const double m2 = m2_ + m2b + d2 * na * nb / n;
  const double m3 = m3_ + m3b + d2 * d * na * nb * (na - nb) / (n * n) +
                    3 * d * (na * m2b - nb * m2_) / n;
  const double m4 =
      m4_ + m4b +
      d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
      6 * d2 * (na * na * m2b + nb * nb * m2_) / (n * n) +
      4 * d * (na * m3b - nb * m3_) / n;
  mean_ += d * nb / n;
  m2_ = m2;
  m3_ = m3;
  m4_ = m4;
}

void LogHistogram::Merge(const LogHistogram& other) {
  if (other.counts_.size() != counts_.size() || other.offset_ != offset_ ||
      other.alpha_ != alpha_) {
    throw std::invalid_argument("LogHistogram::Merge: different layouts");
  }
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  CombineMoments(static_cast<double>(other.count_), other.mean_, other.m2_,
                 other.m3_, other.m4_);
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LogHistogram::Clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = max_ = mean_ = m2_ = m3_ = m4_ = 0;
}

double LogHistogram::variance() const {
  return count_ ? m2_ / static_cast<double>(count_) : 0.0;
}

double LogHistogram::stdev() const { return std::sqrt(variance()); }

double LogHistogram::skewness() const {
  if (count_ < 2 || m2_ <= 0) return 0.0;
  return std::sqrt(static_cast<double>(count_)) * m3_ / std::pow(m2_, 1.5);
}

double LogHistogram::kurtosis() const {
  if (count_ < 2 || m2_ <= 0) return 0.0;
  return static_cast<double>(count_) * m4_ / (m2_ * m2_) - 3.0;
}

double LogHistogram::Quantile(double q) const {
  if (count_ == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return Estimate(static_cast<int>(i));
  }
  return max_;
}

std::vector<LogHistogram::Bin> LogHistogram::Bins(int merge) const {
  std::vector<Bin> out;
  if (merge < 1) merge = 1;
  const int last = static_cast<int>(counts_.size()) - 1;
  if (counts_[0]) out.push_back({LowerEdge(0), UpperEdge(0), counts_[0]});
  for (int i = 1; i < last;) {
    // Group fine bins aligned on multiples of `merge`.
    int group_end = std::min(last, i + merge - ((i - 1) % merge));
    uint64_t c = 0;
    for (int j = i; j < group_end; ++j) c += counts_[static_cast<size_t>(j)];
    if (c) out.push_back({LowerEdge(i), UpperEdge(group_end - 1), c});
    i = group_end;
  }
  if (counts_[static_cast<size_t>(last)]) {
    out.push_back(
        {LowerEdge(last), UpperEdge(last), counts_[static_cast<size_t>(last)]});
  }
  return out;
}

namespace {

// Index of the lowest coarse bin in [a, b] (the first one on ties).
int ValleyBetween(const std::vector<uint64_t>& coarse, int a, int b) {
  int arg = a;
  for (int i = a; i <= b; ++i) {
    if (coarse[static_cast<size_t>(i)] < coarse[static_cast<size_t>(arg)])
      arg = i;
  }
  return arg;
}

// Local maxima of the coarse counts, tallest first, kept when their
// neighbourhood holds at least min_fraction of the n samples and a valley
// below half their height separates them from every taller peak kept.
std::vector<int> SeparatedPeaks(const std::vector<uint64_t>& coarse, double n,
                                double min_fraction) {
  const int m = static_cast<int>(coarse.size());
  std::vector<int> candidates;
  for (int i = 0; i < m; ++i) {
    const uint64_t left = i > 0 ? coarse[static_cast<size_t>(i) - 1] : 0;
    const uint64_t right = i + 1 < m ? coarse[static_cast<size_t>(i) + 1] : 0;
    if (coarse[static_cast<size_t>(i)] > left &&
        coarse[static_cast<size_t>(i)] >= right) {
      candidates.push_back(i);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return coarse[static_cast<size_t>(a)] > coarse[static_cast<size_t>(b)];
  });
  std::vector<int> peaks;
  for (int c : candidates) {
    const double h = static_cast<double>(coarse[static_cast<size_t>(c)]);
    // Height relative to the mass in the peak's neighbourhood.
    double local = h;
    if (c > 0) local += static_cast<double>(coarse[static_cast<size_t>(c - 1)]);
    if (c + 1 < m)
      local += static_cast<double>(coarse[static_cast<size_t>(c) + 1]);
    if (local / n < min_fraction) continue;
    bool separated = true;
    for (int p : peaks) {
      uint64_t valley = UINT64_MAX;
      for (int k = std::min(p, c); k <= std::max(p, c); ++k) {
        valley = std::min(valley, coarse[static_cast<size_t>(k)]);
      }
      if (static_cast<double>(valley) >= 0.5 * h) separated = false;
    }
    if (separated) peaks.push_back(c);
  }
  return peaks;
}

}  // namespace

std::vector<LogHistogram::Mode> LogHistogram::Modes(double resolution,
                                                    double min_fraction) const {
  std::vector<Mode> modes;
  if (count_ == 0) return modes;
  // Bins half the resolution wide: two peaks need a bin between them.
  const int merge = std::max(
      1,
      static_cast<int>(std::lround(std::log1p(resolution / 2) / log_gamma_)));
  // Coarse counts over the whole occupied range, empty bins included.
  int first = -1, last = -1;
  for (int i = 0; i < static_cast<int>(counts_.size()); ++i) {
    if (counts_[static_cast<size_t>(i)]) {
      if (first < 0) first = i;
      last = i;
    }
  }
  std::vector<uint64_t> coarse;
  std::vector<int> coarse_start;
  for (int i = first; i <= last; i += merge) {
    uint64_t c = 0;
    for (int j = i; j < std::min(last + 1, i + merge); ++j)
      c += counts_[static_cast<size_t>(j)];
    coarse.push_back(c);
    coarse_start.push_back(i);
  }
  const int m = static_cast<int>(coarse.size());
  const double n = static_cast<double>(count_);
  std::vector<int> peaks = SeparatedPeaks(coarse, n, min_fraction);
  std::sort(peaks.begin(), peaks.end());
  for (size_t k = 0; k < peaks.size(); ++k) {
    // Basin: between the minima that separate neighbouring peaks.
    const int lo =
        k == 0 ? 0 : ValleyBetween(coarse, peaks[k - 1], peaks[k]) + 1;
    const int hi = k + 1 == peaks.size()
                       ? m - 1
                       : ValleyBetween(coarse, peaks[k], peaks[k + 1]);
    uint64_t mass = 0;
    for (int i = lo; i <= hi; ++i) mass += coarse[static_cast<size_t>(i)];
    // Peak value: the fullest fine bin inside the peak's coarse bin.
    const int start = coarse_start[static_cast<size_t>(peaks[k])];
    int best = start;
    for (int j = start; j < std::min(last + 1, start + merge); ++j) {
      if (counts_[static_cast<size_t>(j)] > counts_[static_cast<size_t>(best)])
        best = j;
    }
    modes.push_back({Estimate(best), static_cast<double>(mass) / n});
  }
  return modes;
}

nlohmann::json LogHistogram::ToJson() const {
  nlohmann::json bins = nlohmann::json::array();
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i]) bins.push_back({i, counts_[i]});
  }
  return {{"relative_error", alpha_},
          {"min_value", min_value_},
          {"max_value", max_value_},
          {"count", count_},
          {"min", min_},
          {"max", max_},
          {"mean", mean_},
          {"m2", m2_},
          {"m3", m3_},
          {"m4", m4_},
          {"bins", bins}};
}

LogHistogram LogHistogram::FromJson(const nlohmann::json& j) {
  LogHistogram h(j.at("relative_error").get<double>(),
                 j.at("min_value").get<double>(),
                 j.at("max_value").get<double>());
  h.count_ = j.at("count").get<uint64_t>();
  h.min_ = j.at("min").get<double>();
  h.max_ = j.at("max").get<double>();
  h.mean_ = j.at("mean").get<double>();
  h.m2_ = j.at("m2").get<double>();
  h.m3_ = j.at("m3").get<double>();
  h.m4_ = j.at("m4").get<double>();
  uint64_t total = 0;
  for (const auto& b : j.at("bins")) {
    const size_t i = b.at(0).get<size_t>();
    if (i >= h.counts_.size())
      throw std::invalid_argument("histogram bin out of range");
    h.counts_[i] = b.at(1).get<uint64_t>();
    total += h.counts_[i];
  }
  if (total != h.count_)
    throw std::invalid_argument("histogram count mismatch");
  return h;
}

}  // namespace verbsbench
