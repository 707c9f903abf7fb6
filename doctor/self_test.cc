#include "doctor/self_test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace verbsemu::doctor {
namespace {

// A private temporary directory, removed with what the test left in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/verbsemu-doctor.XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (path_.empty()) return;
    unlink((path_ + "/report").c_str());
    unlink((path_ + "/child.log").c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::optional<std::string> Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string LastLine(const std::string& text) {
  std::string last, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Runs argv with stdout and stderr to `log`; waits at most `timeout_s`.
ChildEnd RunChild(const std::vector<std::string>& argv, const std::string& log,
                  int timeout_s) {
  ChildEnd end;
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %m\n", args[0]);
    _exit(127);
  }
  if (pid < 0) {
    end.last_line = "fork failed";
    return end;
  }
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      end.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!end.timed_out && WIFEXITED(status)) end.exit_code = WEXITSTATUS(status);
  if (!end.timed_out && WIFSIGNALED(status)) end.signal = WTERMSIG(status);
  end.last_line = LastLine(Slurp(log).value_or(""));
  return end;
}

// "device DEV: qps N, wrs M" up to M, the shim's device line
// (shim/internal/report.cc), when `line` is DEV's with N and M at least 1;
// else "".
std::string ShowsQpAndWr(const std::string& line, const std::string& device) {
  const std::string head = "device " + device + ": qps ";
  if (!line.starts_with(head)) return "";
  unsigned long long qps = 0, wrs = 0;
  int used = 0;
  if (std::sscanf(line.c_str() + head.size(), "%llu, wrs %llu%n", &qps, &wrs,
                  &used) != 2 ||
      qps < 1 || wrs < 1) {
    return "";
  }
  return line.substr(0, head.size() + static_cast<size_t>(used));
}

}  // namespace

std::vector<std::string> SelfTestArgv(const std::string& self,
                                      const std::string& report,
                                      const std::string& device) {
  return {self,        "run", "--report",  report,
          "--latency", "1us", "--devices", device,
          "--",        self,  "doctor",    "--self-test-child",
          device};
}

Finding JudgeSelfTest(const std::string& device,
                      const std::optional<std::string>& report,
                      const ChildEnd& end) {
  const std::string what = "self-test on " + device + ": ";
  if (end.timed_out) {
    return Finding::Problem(
        what + "no end within the timeout (" +
        (end.last_line.empty() ? "no output" : end.last_line) + ")");
  }
  if (end.exit_code != 0) {
    const std::string how =
        end.signal != 0 ? "killed by signal " + std::to_string(end.signal)
                        : "exit " + std::to_string(end.exit_code);
    return Finding::Problem(
        what + "failed (" + how + ": " +
        (end.last_line.empty() ? "no output" : end.last_line) + ")");
  }
  std::istringstream lines(report.value_or(""));
  for (std::string line; std::getline(lines, line);) {
    const std::string shown = ShowsQpAndWr(line, device);
    if (!shown.empty()) {
      std::string text = what;
      text += "an RC QP of a privately loaded libibverbs (NCCL's way) was ";
      text += "emulated: ";
      text += shown;
      return Finding::Ok(text);
    }
  }
  return Finding::Problem(
      what + (report
                  ? "the shim's report does not show the QP's WR on " + device +
                        ": a program that loads libibverbs as "
                        "NCCL does would run unemulated"
                  : "the shim wrote no report: it did not see the "
                    "device, so nothing would be emulated"));
}

Findings ProcessSelfTest::Run(const std::string& device) const {
  TempDir dir;
  if (dir.path().empty()) {
    return {Finding::Problem("self-test on " + device +
                             ": cannot make a temporary directory")};
  }
  const std::string report = dir.path() + "/report";
  const ChildEnd end = RunChild(SelfTestArgv(self_, report, device),
                                dir.path() + "/child.log", timeout_s_);
  return {JudgeSelfTest(device, Slurp(report), end)};
}

}  // namespace verbsemu::doctor
