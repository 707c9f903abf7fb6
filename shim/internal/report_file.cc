#include "shim/internal/report_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace verbsemu::shim::internal {

std::string ReportEndLine(int pid) {
  return "verbsemu report end (pid " + std::to_string(pid) + ")\n";
}

std::string ReportFileText(std::string_view report,
                           const std::vector<std::string>& warnings, int pid) {
  const size_t first_nl = report.find('\n');
  const size_t body_at =
      first_nl == std::string_view::npos ? report.size() : first_nl + 1;
  std::string head(report.substr(0, body_at));
  std::string rest;
  for (const std::string& w : warnings) head += w + "\n";
  for (size_t at = body_at; at < report.size();) {
    const size_t nl = report.find('\n', at);
    const size_t end = nl == std::string_view::npos ? report.size() : nl + 1;
    const std::string_view line = report.substr(at, end - at);
    std::string& to = line.starts_with("WARNING") ? head : rest;
    to += line;
    if (!line.ends_with('\n')) to += '\n';
    at = end;
  }
  return head + rest + ReportEndLine(pid);
}

bool AppendReportFile(const std::string& path, std::string_view text,
                      std::string* why) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
           0600);
  if (fd < 0) {
    *why = "cannot write the report to " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return true;
  *why = "the report to " + path + " was cut short (" + std::to_string(done) +
         " of " + std::to_string(text.size()) +
         " bytes written: " + std::strerror(err) + ")";
  return false;
}

}  // namespace verbsemu::shim::internal
