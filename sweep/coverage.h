// Whether a run was emulated: every RDMA process under the shim writes a
// report (VERBSEMU_REPORT=DIR/reports/run-N/%h.%p.txt); a run whose reports
// say a process was not emulated (a configuration error, traffic that
// bypassed the shim, direct verbs left unemulated) is invalid, and so is a
// run with fewer reports than the sweep's other runs (a rank started
// without the shim writes none), and every run of a program none of whose
// runs wrote a report (the shim never saw it open a device).
#ifndef VERBSEMU_SWEEP_COVERAGE_H_
#define VERBSEMU_SWEEP_COVERAGE_H_

#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::sweep {

struct Coverage {
  int reports = 0;     // processes that opened a device under the shim
  bool valid = true;   // no report says "not emulated"
  std::string reason;  // the first such line, with its file
};

// `files`: (name, contents) of one run's reports.
Coverage JudgeReports(
    const std::vector<std::pair<std::string, std::string>>& files);

// Reads every regular file in `dir` (none: no reports) and judges them.
Coverage JudgeReportDir(const std::string& dir);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_COVERAGE_H_
