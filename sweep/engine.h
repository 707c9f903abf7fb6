// Runs a sweep's plan: each planned run with the shim and the point's
// settings in the environment, its output in DIR/logs, its processes'
// reports in DIR/reports, its row appended to DIR/runs.csv as it ends.
#ifndef VERBSEMU_SWEEP_ENGINE_H_
#define VERBSEMU_SWEEP_ENGINE_H_

#include <functional>
#include <string>
#include <vector>

#include "sweep/executor.h"
#include "sweep/grid.h"
#include "sweep/internal/write_file.h"
#include "sweep/metric.h"
#include "sweep/plan.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {

// The shim's variables a sweep sets (what mpirun -x must carry).
std::vector<std::string> SweepVariables();

class SweepEngine {
 public:
  // `preload`: the LD_PRELOAD value that loads libverbsemu.so (with what
  // the sweep's own environment preloads after it).
  SweepEngine(const SweepPlan& plan, const Grid& grid, const Metric& metric,
              Executor* executor, std::string preload);

  using Progress = std::function<void(const RunRecord&, size_t done)>;

  // Runs plan.order from records->size() on, appending to `*records` and
  // to runs.csv (each row synced); returns early, dropping the run under
  // way, once the sweep is signalled. false with one line in `why` when a
  // row cannot be written (the rows before it stay whole).
  bool Run(std::vector<RunRecord>* records, const Interrupts& stop,
           const Progress& progress, std::string* why,
           const internal::FileOps& ops = internal::SystemFileOps());

  // Planned run `index` once more (--retry-failed), passing `stop` on.
  RunRecord RunAgain(size_t index, const Interrupts& stop);

  // The request for planned run `index`: command, environment, log.
  RunRequest Request(size_t index) const;

 private:
  RunRecord RunOne(size_t index);

  const SweepPlan& plan_;
  const Grid& grid_;
  const Metric& metric_;
  Executor* executor_;
  const Interrupts* stop_ = nullptr;  // during Run()
  std::string preload_;
};

// After the last run: a run with fewer shim reports than the most any run
// of the same program wrote is invalid (a rank ran without the shim).
void CheckReportCounts(std::vector<RunRecord>* records);

// The last line of a run's output, at most 200 bytes, cut on a UTF-8
// boundary.
std::string LastLine(const std::string& text);

// Paths inside DIR.
std::string RunTag(size_t index);  // "run-0007"
std::string LogPath(const std::string& dir, size_t index);
std::string ReportDir(const std::string& dir, size_t index);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_ENGINE_H_
