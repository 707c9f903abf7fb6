// A sweep's grid: every combination of the latencies and bandwidths asked
// for, each point carrying the VERBSEMU_* values that set it (validated by
// the shim's own knob table, so the sweep accepts exactly what the shim
// does), and the order the runs take: randomized complete blocks, each
// holding every point once, so drift and noise fall evenly on all points
// (sweep/plan.h draws it).
#ifndef VERBSEMU_SWEEP_GRID_H_
#define VERBSEMU_SWEEP_GRID_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace verbsemu::sweep {

// The LogGP axes besides latency and bandwidth, each a list of durations
// set through the shim knob of its flag. Written once here: the sweep's
// options, plan.json ("<name>s"), runs.csv and sweep.json ("<name>",
// "<name>_ns") and the fits (slope per µs of each) all come from it.
struct DurationAxis {
  std::string_view flag;  // --overhead
  std::string_view name;  // overhead
  std::string_view help;  // for --help and docs/sweep.md
};
inline constexpr size_t kDurationAxisCount = 3;
inline constexpr std::array<DurationAxis, kDurationAxisCount> kDurationAxes = {
    {{"--overhead", "overhead",
      "LogGP's o: CPU time per WR spun inside the posting call, such as "
      "0,1us,2us"},
     {"--recv-overhead", "recv_overhead",
      "LogGP's o on the receive side: CPU time per receive completion "
      "ibv_poll_cq returns"},
     {"--gap", "gap",
      "LogGP's g: least time between message starts per QP (a message rate "
      "of 1/g), such as 0,500ns,1us"}}};
// One value per axis: the lists asked for, or a point's values as given.
using DurationTexts = std::array<std::string, kDurationAxisCount>;
using DurationNs = std::array<double, kDurationAxisCount>;

struct GridPoint {
  std::string latency;    // as given, e.g. "2us" ("0": none)
  std::string bandwidth;  // as given, e.g. "50%" ("100%": none)
  double latency_ns = 0;
  double bandwidth_share = 1;  // of the link; 0 when given as a rate
  // Per kDurationAxes row: as given ("0": none), and in ns.
  DurationTexts durations = {"0", "0", "0"};
  DurationNs durations_ns = {};
  // No LogGP axis set: the point is on the latency/bandwidth plane.
  bool plain() const {
    for (double ns : durations_ns) {
      if (ns != 0) return false;
    }
    return true;
  }
  bool baseline() const {
    return latency_ns == 0 && bandwidth_share == 1 && plain();
  }
  // VERBSEMU_* variables and values for this point (none for the baseline
  // parts), `bw_mode` added when a bandwidth is set.
  std::vector<std::pair<std::string, std::string>> Environment(
      std::string_view bw_mode) const;
};

struct Grid {
  std::vector<GridPoint> points;  // latency-major, in the order given
};

// `latencies`: "0,1us,2us"; `bandwidths`: "100%,50%" (empty: "100%");
// `durations`: a list per kDurationAxes row (empty: "0"). Every
// combination, latency-major. A bad or repeated value: nullopt and one
// line in `why`.
std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths,
                              const DurationTexts& durations, std::string* why);
std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths, std::string* why);

// Puts the baseline (no added latency, full bandwidth) first when the grid
// lacks it: every block measures it, so each point has its reference.
void EnsureBaseline(Grid* grid);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_GRID_H_
