// Whether a run was emulated: every RDMA process under the shim writes a
// JSON report beside its human one (VERBSEMU_REPORT=DIR/reports/run-N/
// %h.%p.txt, so %h.%p.txt.json; //report:reader.h reads it). Only the JSON
// reports are judged. A run is invalid when a report says a process was
// not emulated (a configuration error, or a warning the shim marks as
// invalidating: traffic that bypassed the shim, direct verbs left
// unemulated), when a report cannot be read (cut short, foreign, another
// schema version), when it has fewer reports than the sweep's other runs
// (a rank started without the shim writes none), and every run of a
// program none of whose runs wrote a report (the shim never saw it open a
// device).
#ifndef VERBSEMU_SWEEP_COVERAGE_H_
#define VERBSEMU_SWEEP_COVERAGE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/reader.h"

namespace verbsemu::sweep {

struct Coverage {
  int reports = 0;     // processes that opened a device under the shim
  bool valid = true;   // every report read, and none says "not emulated"
  std::string reason;  // the first reason why not, with its file
  // The processes' waits added up (each process's latest report): the
  // delay the shim delivered, against the one the run asked for.
  report::Waits waits;
  // Mean delay per wait in ns, all of it and the spin's own part (without
  // the lateness of waits whose thread lost the CPU); 0 without waits.
  double MeanWaitNs() const;
  double MeanOwnWaitNs() const;
};

// `files`: (name, contents) of one run's report files; only those named
// *.json are read.
Coverage JudgeReports(
    const std::vector<std::pair<std::string, std::string>>& files);

// Reads every regular file in `dir` (none: no reports) and judges them.
Coverage JudgeReportDir(const std::string& dir);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_COVERAGE_H_
