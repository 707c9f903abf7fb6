#include "sweep/executor.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sweep/internal/read_file.h"

namespace verbsemu::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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

// Live (not zombie) processes in process group `pgid`, from /proc.
int GroupSize(pid_t pgid) {
  if (kill(-pgid, 0) != 0) return 0;  // the common case, without a scan
  int count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    const std::string path = std::string("/proc/") + e->d_name + "/stat";
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // it ended meanwhile
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    const std::string stat(buf, static_cast<size_t>(n));
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %ld %ld", &state, &ppid,
                    &pgrp) == 3 &&
        pgrp == pgid && state != 'Z') {
      ++count;
    }
  }
  closedir(proc);
  return count;
}

// Reaps what is ours of group `pgid` (orphans come to the subreaper).
void ReapGroup(pid_t pgid) {
  while (waitpid(-pgid, nullptr, WNOHANG) > 0) {
  }
}

// After the leader: the group's leftovers, counted, then ended.
int EndGroup(pid_t pgid, double grace_s) {
  ReapGroup(pgid);
  const int left = GroupSize(pgid);
  if (left == 0) return 0;
  kill(-pgid, SIGTERM);
  const auto start = Clock::now();
  bool killed = false;
  while (GroupSize(pgid) > 0 && Since(start) < 2 * grace_s + 5) {
    if (!killed && Since(start) > grace_s) {
      kill(-pgid, SIGKILL);
      killed = true;
    }
    ReapGroup(pgid);
    usleep(2000);
  }
  ReapGroup(pgid);
  return left;
}

// Where a run is on its way to being ended.
struct Escalation {
  int step = 0;  // 0 none, 1 signal passed on, 2 SIGTERM sent, 3 SIGKILL
  double next_s = 0;
  int seen = 0;  // interrupts acted on
};

// One look at the clock and the interrupts: what to send the group now.
void Escalate(pid_t pid, const RunRequest& req, double s, Escalation* e,
              bool* timed_out) {
  const int count = req.interrupt ? req.interrupt->count.load() : 0;
  if (count > e->seen && e->step < 3) {
    if (count == 1 && e->step == 0) {
      kill(-pid, req.interrupt->signal.load());
      *e = {1, s + req.grace_s, count};
    } else {
      kill(-pid, SIGKILL);  // a second signal: at once
      *e = {3, 0, count};
    }
  }
  if (req.timeout_s > 0 && s > req.timeout_s && e->step == 0) {
    *timed_out = true;
    kill(-pid, SIGTERM);
    *e = {2, s + req.grace_s, e->seen};
  } else if ((e->step == 1 || e->step == 2) && s > e->next_s) {
    kill(-pid, e->step == 1 ? SIGTERM : SIGKILL);
    *e = {e->step + 1, s + req.grace_s, e->seen};
  }
}

// Reaps `pid`, passing signals on and ending its group at the deadline.
int WaitFor(pid_t pid, const RunRequest& req, bool* timed_out) {
  const auto start = Clock::now();
  int status = 0;
  for (Escalation e;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return status;
    Escalate(pid, req, Since(start), &e, timed_out);
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
  // Orphans of the command come to the sweep, which reaps them.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const auto start = Clock::now();
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
  out.wall_s = Since(start);
  out.leftovers = EndGroup(pid, request.grace_s);
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  } else {
    out.exit_code = WEXITSTATUS(status);
  }
  out.output = internal::ReadFileTail(request.log_path, max_output_);
  return out;
}

}  // namespace verbsemu::sweep
