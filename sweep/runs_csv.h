// DIR/runs.csv: one row per run, written as each run ends (so an
// interrupted sweep keeps what ran and --resume can read it back), and
// rewritten once at the end with the final verdicts.
#ifndef VERBSEMU_SWEEP_RUNS_CSV_H_
#define VERBSEMU_SWEEP_RUNS_CSV_H_

#include <optional>
#include <string>
#include <vector>

#include "sweep/grid.h"

namespace verbsemu::sweep {

// What a run runs: the application, the --pingpong command, or the
// --control command (without the shim). Its name is runs.csv's `program`,
// its number plan.json's third field of a run.
enum class Program { kApp = 0, kPingpong = 1, kControl = 2 };
inline constexpr const char* kProgramNames[] = {"app", "pingpong", "control"};
inline const char* ProgramName(Program p) {
  return kProgramNames[static_cast<int>(p)];
}

struct RunRecord {
  int run = 0;                  // position in the sweep's order, from 0
  int block = 0;                // randomized block, from 0
  int point = 0;                // grid point index
  std::string program = "app";  // ProgramName()
  std::string latency;          // as given
  double latency_ns = 0;
  std::string bandwidth;  // as given
  double bandwidth_share = 1;
  std::string bw_mode;
  std::optional<double> metric;  // none when the run failed
  double wall_s = 0;
  std::string status;  // "exit 0", "killed by SIGKILL", ...
  bool valid = false;  // succeeded, metric read, every process emulated
  int reports = 0;     // shim reports the run's processes wrote
  std::string reason;  // why not valid; empty when valid
  // The delay the shim delivered (sweep/coverage.h): the processes' waits,
  // and the mean per wait in ns, all of it and the spin's own part.
  double waits = 0;
  double wait_ns = 0;
  double wait_own_ns = 0;
  // Per kDurationAxes row (sweep/grid.h): as given, and in ns.
  DurationTexts durations = {"0", "0", "0"};
  DurationNs durations_ns = {};
};

// The header line (no newline), and one row (no newline).
std::string RunsCsvHeader();
std::string RunsCsvRow(const RunRecord& r);

// Reads a runs.csv written by this version; nullopt and one line in `why`
// for a different header or a malformed row. A last row without its
// newline (the sweep was killed while writing it) is left out.
std::optional<std::vector<RunRecord>> ReadRunsCsv(const std::string& text,
                                                  std::string* why);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_RUNS_CSV_H_
