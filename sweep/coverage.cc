#include "sweep/coverage.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/reader.h"
#include "report/schema.h"
#include "sweep/internal/read_file.h"

namespace verbsemu::sweep {

Coverage JudgeReports(
    const std::vector<std::pair<std::string, std::string>>& files) {
  Coverage c;
  // Distinct pids: a process rewrites its report on VERBSEMU_REPORT_SIGNAL;
  // its waits only grow, so its latest report has the most.
  std::map<long, report::Waits> pids;
  for (const auto& [name, text] : files) {
    if (!std::string_view(name).ends_with(report::kJsonSuffix)) continue;
    std::string why;
    const auto r = report::ParseReport(text, &why);
    if (r) {
      report::Waits& w = pids[r->pid];
      if (r->waits && r->waits->count >= w.count) w = *r->waits;
      why = report::NotEmulated(*r);
    }
    if (why.empty() || !c.valid) continue;
    c.valid = false;
    c.reason = name + ": " + why;
  }
  c.reports = static_cast<int>(pids.size());
  for (const auto& [pid, w] : pids) {
    c.waits.count += w.count;
    c.waits.waited_ns += w.waited_ns;
    c.waits.lost_cpu += w.lost_cpu;
    c.waits.lost_cpu_late_ns += w.lost_cpu_late_ns;
  }
  return c;
}

double Coverage::MeanWaitNs() const {
  return waits.count > 0 ? waits.waited_ns / waits.count : 0;
}

double Coverage::MeanOwnWaitNs() const {
  return waits.count > 0
             ? (waits.waited_ns - waits.lost_cpu_late_ns) / waits.count
             : 0;
}

Coverage JudgeReportDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (!std::string_view(name).ends_with(report::kJsonSuffix)) continue;
    files.emplace_back(name, internal::ReadFile(entry.path().string()));
  }
  std::sort(files.begin(), files.end());
  return JudgeReports(files);
}

}  // namespace verbsemu::sweep
