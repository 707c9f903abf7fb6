// The shim's JSON report (schema //report:schema.h), one document per
// process beside the human report: what verbsemu sweep judges a run by.
#ifndef VERBSEMU_SHIM_INTERNAL_REPORT_JSON_H_
#define VERBSEMU_SHIM_INTERNAL_REPORT_JSON_H_

#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::shim::internal {

struct Engine;
struct QpRecord;

// The QPs a report lists: the destroyed ones kept, then the live ones.
// Caller holds e.mu.
std::vector<QpRecord> QpRecordsLocked(Engine& e);

// This process's document: settings, devices and ports, QPs, counters,
// and every warning recorded so far (warnings.h), so build the human
// report first. Takes the engine lock.
std::string ReportJson();

// Where the JSON report goes: the human report's file `path` (expanded
// from `pattern`) with ".json" appended; when the pattern has no %p (one
// file for several processes), with ".PID" before it.
std::string JsonReportPath(std::string_view pattern, const std::string& path,
                           int pid);

// Replaces `path` with `text` whole (a temporary file renamed over it), so
// a reader never sees a cut document. False with one line in `why`.
bool WriteJsonReport(const std::string& path, std::string_view text,
                     std::string* why);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REPORT_JSON_H_
