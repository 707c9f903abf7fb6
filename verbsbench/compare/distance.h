// Distances between two empirical distributions given as histograms
// (Confidence's ORIG vs NEW, §IV): both are put on one shared bin layout, the
// union of their bin edges, with each bin's samples spread uniformly over its
// width, so each CDF is piecewise linear between shared edges. On that layout
// the Kolmogorov-Smirnov distance (largest CDF gap) and the Wasserstein-1
// distance (area between the CDFs, in the samples' unit) are exact.
#ifndef VERBSBENCH_COMPARE_DISTANCE_H_
#define VERBSBENCH_COMPARE_DISTANCE_H_

#include <array>
#include <cstddef>
#include <vector>

namespace verbsbench::compare {

// One histogram bin: `count` samples spread over [lo, hi), hi > lo.
struct Bin {
  double lo = 0;
  double hi = 0;
  double count = 0;
};

// Two runs' samples on one layout: edges[0] < ... < edges[k]; mass[r][i] is
// run r's share (a fraction of its samples) in [edges[i], edges[i+1]).
struct SharedBins {
  std::vector<double> edges;
  std::array<std::vector<double>, 2> mass;
  size_t intervals() const { return edges.empty() ? 0 : edges.size() - 1; }
};

// Checks a run's bins (finite, hi > lo, non-negative counts, in order and
// not overlapping, some samples): the reason when they are not, else empty.
const char* BinsProblem(const std::vector<Bin>& bins);

// Re-bins both runs onto the union of their edges. The bins must pass
// BinsProblem (std::invalid_argument otherwise).
SharedBins Rebin(const std::vector<Bin>& a, const std::vector<Bin>& b);

// sup |F_a - F_b|, in [0, 1].
double KsDistance(const SharedBins& s);
// Integral of |F_a - F_b| dx, in the edges' unit.
double Wasserstein1(const SharedBins& s);

// Two-sample KS significance, asymptotic (Kolmogorov's distribution with
// Stephens' small-sample correction): the probability of a distance at least
// `d` between samples of sizes n and m drawn from one distribution. Assumes
// independent samples; on binned data `d` is at most the samples' distance,
// so the value is an upper bound.
double KsPValue(double d, double n, double m);

// Samples on the histogram layout verbsbench records with (LogHistogram,
// relative error 0.5%: bins 1% wide), one Bin per non-empty bin.
std::vector<Bin> BinSamples(const std::vector<double>& samples);

// The value below which a fraction q of run r's samples lie on the shared
// layout (linear within an interval); q in [0, 1].
double SharedQuantile(const SharedBins& s, int run, double q);

// For plots: per shared interval, both runs' density (fraction per unit)
// and CDF at its upper edge.
struct OverlayRow {
  double lo, hi;
  std::array<double, 2> pdf;
  std::array<double, 2> cdf;
};
std::vector<OverlayRow> Overlay(const SharedBins& s);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_DISTANCE_H_
