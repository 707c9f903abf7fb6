// On-request reports: with VERBSEMU_REPORT_SIGNAL the process writes its
// report whenever it receives that signal, and goes on. The handler only
// posts a semaphore (async-signal-safe); a watcher thread writes the report.
#ifndef VERBSEMU_SHIM_INTERNAL_REPORT_SIGNAL_H_
#define VERBSEMU_SHIM_INTERNAL_REPORT_SIGNAL_H_

namespace verbsemu::shim::internal {

enum class ReportSignalState { kArmed, kAppHandlesIt, kFailed };

// Installs the handler for `signo` unless the application has a handler or
// ignores it (then it stays the application's), and starts the watcher thread
// that calls `write_report`; once per process, again in a forked child. Call
// with the engine lock held: that serializes it and keeps it out of fork.
ReportSignalState ArmReportSignal(int signo, void (*write_report)());

// In a forked child: the watcher thread did not survive the fork.
void ReportSignalForgetWatcher();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REPORT_SIGNAL_H_
