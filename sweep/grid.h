// A sweep's grid: every combination of the latencies and bandwidths asked
// for, each point carrying the VERBSEMU_* values that set it (validated by
// the shim's own knob table, so the sweep accepts exactly what the shim
// does), and the order the runs take: randomized complete blocks, each
// holding every point once, so drift and noise fall evenly on all points
// (sweep/plan.h draws it).
#ifndef VERBSEMU_SWEEP_GRID_H_
#define VERBSEMU_SWEEP_GRID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace verbsemu::sweep {

struct GridPoint {
  std::string latency;    // as given, e.g. "2us" ("0": none)
  std::string bandwidth;  // as given, e.g. "50%" ("100%": none)
  double latency_ns = 0;
  double bandwidth_share = 1;  // of the link; 0 when given as a rate
  bool baseline() const { return latency_ns == 0 && bandwidth_share == 1; }
  // VERBSEMU_* variables and values for this point (none for the baseline
  // parts), `bw_mode` added when a bandwidth is set.
  std::vector<std::pair<std::string, std::string>> Environment(
      std::string_view bw_mode) const;
};

struct Grid {
  std::vector<GridPoint> points;  // latency-major, in the order given
};

// `latencies`: "0,1us,2us"; `bandwidths`: "100%,50%" (empty: "100%").
// A bad or repeated value: nullopt and one line in `why`.
std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths, std::string* why);

// Puts the baseline (no added latency, full bandwidth) first when the grid
// lacks it: every block measures it, so each point has its reference.
void EnsureBaseline(Grid* grid);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_GRID_H_
