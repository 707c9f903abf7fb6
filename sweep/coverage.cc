#include "sweep/coverage.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "sweep/internal/read_file.h"

namespace verbsemu::sweep {
namespace {

// One report's verdict: "" when emulated, else why not.
std::string NotEmulated(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (line.starts_with("verbsemu report") &&
        line.find("not emulating") != std::string_view::npos) {
      return std::string(line);
    }
    // The shim's warnings: bypass, direct verbs left unemulated.
    if (line.starts_with("WARNING")) return std::string(line);
  }
  return "";
}

// Processes with a report in `text`: distinct pids, since one process
// writes again on VERBSEMU_REPORT_SIGNAL and at exit.
int CountProcesses(std::string_view text) {
  constexpr std::string_view kHeader = "verbsemu report (pid ";
  std::set<long> pids;
  for (size_t at = text.find(kHeader); at != std::string_view::npos;
       at = text.find(kHeader, at + 1)) {
    pids.insert(std::strtol(text.data() + at + kHeader.size(), nullptr, 10));
  }
  return static_cast<int>(pids.size());
}

}  // namespace

Coverage JudgeReports(
    const std::vector<std::pair<std::string, std::string>>& files) {
  Coverage c;
  for (const auto& [name, text] : files) {
    // A file may hold several processes' reports when the path has no %p.
    c.reports += CountProcesses(text);
    if (!c.valid) continue;
    const std::string why = NotEmulated(text);
    if (!why.empty()) {
      c.valid = false;
      c.reason = name;
      c.reason += ": ";
      c.reason += why;
    }
  }
  return c;
}

Coverage JudgeReportDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    files.emplace_back(entry.path().filename().string(),
                       internal::ReadFile(entry.path().string()));
  }
  std::sort(files.begin(), files.end());
  return JudgeReports(files);
}

}  // namespace verbsemu::sweep
