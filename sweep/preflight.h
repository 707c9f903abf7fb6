// What a sweep checks before its first run, when it starts and again when
// it resumes: the command runs, its launcher forwards the shim's
// variables, an inherited device list names a device, and a pilot run
// gives a metric with the shim in place. Each returns "" when all is well,
// else one line that says what to fix.
#ifndef VERBSEMU_SWEEP_PREFLIGHT_H_
#define VERBSEMU_SWEEP_PREFLIGHT_H_

#include <functional>
#include <string>

#include "sweep/executor.h"
#include "sweep/grid.h"
#include "sweep/metric.h"
#include "sweep/plan.h"

namespace verbsemu::sweep {

// The command can be found, and an mpirun or srun in it forwards
// LD_PRELOAD and VERBSEMU_* to the ranks.
std::string CheckCommand(const SweepPlan& plan, Executor* executor);

// VERBSEMU_DEVICES (inherited: the sweep does not set it) names at least
// one of the devices in `sysfs` (/sys/class/infiniband); a host with none
// is not judged (the ranks may run elsewhere).
std::string CheckDevices(const std::function<const char*(const char*)>& getenv,
                         const std::string& sysfs);

// The baseline once, in DIR/pilot, not recorded: it must give a metric,
// be emulated, and (unless plan.allow_unemulated) have written a shim
// report.
std::string Pilot(const SweepPlan& plan, const Grid& grid, const Metric& metric,
                  Executor* executor, const std::string& preload);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PREFLIGHT_H_
