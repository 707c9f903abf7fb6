// What a sweep's runs say: per grid point, the valid runs' summary; the
// metric against added latency (slope per µs); Netscope's delay
// sensitivity c_a (runtime against message delivery time; raw, and over a
// ping-pong's so that a ping-pong's is 1); the metric against bandwidth
// share, and the lowest share it holds within 5% of the baseline down to.
#ifndef VERBSEMU_SWEEP_ANALYSIS_H_
#define VERBSEMU_SWEEP_ANALYSIS_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sweep/blocked_fit.h"
#include "sweep/fit.h"
#include "sweep/grid.h"
#include "sweep/presets.h"
#include "sweep/runs_csv.h"
#include "sweep/stats.h"
#include "sweep/tolerance.h"

namespace verbsemu::sweep {

struct PointResult {
  GridPoint point;
  Summary summary;  // over the valid runs
  int runs = 0;     // application runs recorded
  int failed = 0;   // no metric (the command failed or printed none)
  int invalid = 0;  // measured but not (fully) emulated
  bool valid() const { return invalid == 0 && summary.n > 0; }
  std::string first_reason;  // of a failed or invalid run
  // The valid runs' coefficient of variation (SD over |mean|; 0 when fewer
  // than 2), and whether it stands out: more than kNoisyFactor times the
  // median of the points' CVs.
  double cv = 0;
  bool noisy = false;
};

inline constexpr double kNoisyFactor = 2.0;

// A run the blocked fit set aside: far from its block's line.
struct SetAside {
  int run = 0, block = 0;
  std::string latency;
  double metric = 0;
  double scales = 0;  // its residual in robust SDs (signed)
};

struct Analysis {
  std::vector<PointResult> points;  // grid order
  MetricLabel label;
  bool runtime_metric = true;  // label.wall_time
  // The headline: the metric against added one-way latency in µs at full
  // bandwidth, fitted within the randomized blocks (blocked_fit.h).
  BlockedFit latency_blocked;
  std::vector<SetAside> set_aside;  // runs that fit set aside
  // Least squares over the same runs, ignoring the blocks.
  LineFit latency;
  RobustFit latency_robust;  // Theil-Sen over the same runs
  // The points' medians against latency: how straight the response is,
  // whatever a single stalled run (a soft device's) does to the runs' R².
  LineFit latency_medians;
  // Runtime: c_a = seconds of runtime per second of added one-way delay
  // (the critical path's message count); normalised by the ping-pong's.
  std::optional<double> c_a_raw;
  Interval c_a_raw_ci;
  LineFit pingpong;  // the ping-pong's runtime against latency
  BlockedFit pingpong_blocked;
  Ratio c_a;  // latency_blocked.slope / pingpong_blocked.slope
  // The delay the shim delivered (its processes' reports: the mean wait
  // per run) against the latency asked, in µs per µs, within the blocks:
  // 1 when every wait lasted what was asked, above by the CPU the waiting
  // threads lost (a spin cannot give it back). `delivered_own` leaves
  // that lateness out: the spins' own accuracy. `latency_delivered` is the
  // metric against the delay delivered: the application's own response,
  // apart from the emulator's; `latency_delivered_own` against the spins'
  // own part (a minimum, such as perftest's t_min, follows that one; a mean
  // the first). Not ok unless every valid run at a latency above 0
  // reported waits.
  BlockedFit delivered, delivered_own, latency_delivered, latency_delivered_own;
  // The --control command's metric against the latency it waited on its
  // own (no shim), within the blocks: what a wait costs on this machine,
  // whoever waits. latency_blocked beside it is the shim's.
  BlockedFit control_blocked;
  // Within 1% and 5% of the baseline, from latency_blocked.
  std::vector<Tolerance> latency_tolerance;
  // Metric against bandwidth share (0..1), zero-latency share points.
  LineFit bandwidth;
  // Blocked fit against 1/share - 1, and the shares within 1% and 5%.
  BlockedFit bandwidth_blocked;
  std::vector<Tolerance> bandwidth_tolerance;
  std::optional<double> holds_down_to;  // lowest share within 5% of base
  std::optional<double> first_beyond;   // highest share beyond 5%
  double beyond_change = 0;             // its median's relative change
  // Per kDurationAxes row (sweep/grid.h): the metric against that axis in
  // µs (for the gap: per µs between messages, i.e. per 1/message rate),
  // over the points where no other axis is set. The fits above see only
  // the points where none of these is set.
  std::array<LineFit, kDurationAxisCount> durations;
  bool all_valid = true;
  int failed_runs = 0, invalid_runs = 0;
};

Analysis Analyze(const Grid& grid, const std::vector<RunRecord>& records,
                 const MetricLabel& label);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_ANALYSIS_H_
