#include "sweep/executor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "sweep/internal/read_file.h"

namespace verbsemu::sweep {
namespace {

// The child's side: only async-signal-safe calls would be strictly needed
// in a threaded parent; the sweep is single-threaded, and everything here
// was prepared before fork.
[[noreturn]] void Exec(
    const std::vector<char*>& argv,
    const std::vector<std::pair<std::string, std::string>>& env, int log_fd) {
  setpgid(0, 0);
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, 0);
  dup2(log_fd, 1);
  dup2(log_fd, 2);
  execvp(argv[0], argv.data());
  // The log is the child's stderr now: say it there, exit as a shell does.
  dprintf(2, "verbsemu sweep: cannot run '%s': %s\n", argv[0],
          std::strerror(errno));
  _exit(127);
}

// Reaps `pid`, passing Ctrl-C on and ending its group at the deadline.
int WaitFor(pid_t pid, const RunRequest& req, bool* timed_out) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  bool interrupted = false;
  int status = 0;
  for (int signal_sent = 0;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return status;
    if (!interrupted && req.interrupt != nullptr && req.interrupt->load()) {
      interrupted = true;
      kill(-pid, SIGINT);
    }
    const double s =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (req.timeout_s > 0 && s > req.timeout_s && signal_sent == 0) {
      *timed_out = true;
      kill(-pid, SIGTERM);
      signal_sent = 1;
    } else if (signal_sent == 1 && s > req.timeout_s + 5) {
      kill(-pid, SIGKILL);
      signal_sent = 2;
    }
    usleep(2000);  // 2 ms: against runs of seconds, a negligible error
  }
}

}  // namespace

std::string RunOutcome::Describe() const {
  if (!started) return "not started: " + error;
  if (timed_out) return "timed out";
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by SIG") +
           (name ? name : std::to_string(signal));
  }
  return "exit " + std::to_string(exit_code);
}

RunOutcome ProcessExecutor::Run(const RunRequest& request) {
  RunOutcome out;
  if (request.argv.empty()) {
    out.error = "no command";
    return out;
  }
  const int log_fd = open(request.log_path.c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    out.error = "cannot create " + request.log_path + ": " + strerror(errno);
    return out;
  }
  std::vector<char*> argv;
  for (const std::string& a : request.argv) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) Exec(argv, request.env, log_fd);
  close(log_fd);
  if (pid < 0) {
    out.error = std::string("fork: ") + strerror(errno);
    return out;
  }
  setpgid(pid, pid);  // as the child does: whichever runs first
  out.started = true;
  const int status = WaitFor(pid, request, &out.timed_out);
  out.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  } else {
    out.exit_code = WEXITSTATUS(status);
  }
  out.output = internal::ReadFile(request.log_path);
  return out;
}

}  // namespace verbsemu::sweep
