// The sweep's headline slope: the metric against added latency fitted
// within randomized blocks, robust to single stalled runs.
//
// Each block runs every grid point once, so a block is a batch of runs
// that share the machine's state of the moment. The slope is the median
// of the slopes between two runs of the same block (Theil-Sen with the
// blocks as strata, Sen 1968 / Sievers 1978): a block's offset cancels in
// every such pair, so drift between blocks never reaches the slope or its
// interval; and a run that stalled whole moves only its own pairs into the
// tails of the sorted slopes. The 95% interval is Sen's, from the
// distribution of Kendall's S summed over the blocks (ties in x counted):
// it assumes only that within a block the runs' noise is exchangeable.
#ifndef VERBSEMU_SWEEP_BLOCKED_FIT_H_
#define VERBSEMU_SWEEP_BLOCKED_FIT_H_

#include <cstddef>
#include <vector>

#include "sweep/stats.h"

namespace verbsemu::sweep {

struct BlockedFit {
  bool ok = false;    // some block has two runs at different x
  size_t n = 0;       // runs given
  size_t pairs = 0;   // within-block pairs at different x
  size_t blocks = 0;  // blocks that contributed a pair
  double slope = 0;
  Interval slope_ci;  // 95%
  // The typical block's level at x = 0: the median of the blocks' offsets
  // (each the median of its runs' y - slope x).
  double intercept = 0;
  double scale = 0;  // 1.4826 x the median |residual|: a robust noise SD
  std::vector<double> residuals;  // y - slope x - the run's block offset
  // Runs (indices into x) whose residual exceeds kOutlierScales x scale:
  // the ones a least-squares line would have followed, and this fit set
  // aside (their pairwise slopes fall in the tails of the median).
  std::vector<size_t> outliers;
};

inline constexpr double kOutlierScales = 3.5;

// x, y and block have one entry per run.
BlockedFit FitBlocked(const std::vector<double>& x,
                      const std::vector<double>& y,
                      const std::vector<int>& block);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_BLOCKED_FIT_H_
