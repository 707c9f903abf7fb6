// A report file, the run's record (verbsemu sweep judges runs by it):
// appended whole by one write loop, never through a symlink, mode 0600,
// its warnings where a short write (a full disk) cannot lose them, and an
// end line that tells a complete report from a cut one.
#ifndef VERBSEMU_SHIM_INTERNAL_REPORT_FILE_H_
#define VERBSEMU_SHIM_INTERNAL_REPORT_FILE_H_

#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::shim::internal {

// The last line of every report in a file.
std::string ReportEndLine(int pid);

// `report` (its first line the header) as written to a file: the header,
// then `warnings` and the report's own WARNING lines, then the rest, then
// ReportEndLine(pid).
std::string ReportFileText(std::string_view report,
                           const std::vector<std::string>& warnings, int pid);

// Appends `text` to `path` (O_APPEND|O_NOFOLLOW, created 0600). False, with
// one line in `why`, when it cannot be opened or not all of it was written.
bool AppendReportFile(const std::string& path, std::string_view text,
                      std::string* why);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REPORT_FILE_H_
