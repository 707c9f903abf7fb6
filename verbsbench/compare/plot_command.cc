#include "verbsbench/compare/plot_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace verbsbench::compare {
namespace {

// The line of `text` that says what went wrong: the plot program's "error:"
// line, else its last line.
std::string ErrorLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::optional<std::string> FindPlotScript() {
  if (const char* env = std::getenv("VERBSBENCH_PLOT"); env && *env) {
    return std::string(env);
  }
  std::error_code ec;
  const std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const std::filesystem::path plot =
      self.parent_path().parent_path() / "tools" / "plot" / "plot";
  if (std::filesystem::is_regular_file(plot, ec)) return plot.string();
  return std::nullopt;
}

PlotOutcome RunPlot(const std::vector<std::string>& argv) {
  PlotOutcome out;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  Fd read_end{pipe_fds[0]};
  Fd write_end{pipe_fds[1]};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, STDERR_FILENO);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(write_end.fd);
  write_end.fd = -1;
  if (rc != 0) {
    out.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return out;
  }
  char buf[4096];
  for (ssize_t n; (n = read(read_end.fd, buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.output.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!out.ok) {
    out.error = ErrorLine(out.output);
    if (out.error.empty()) out.error = argv[0] + " failed";
  }
  return out;
}

}  // namespace verbsbench::compare
