// How a sweep runs one instance of the user's command. The engine sees only
// this interface (as UCX's perf library sees only its `rte`): the real one
// forks and execs on this host, and mpirun or srun inside the command carry
// the environment to the ranks; tests substitute a command with a known
// response.
#ifndef VERBSEMU_SWEEP_EXECUTOR_H_
#define VERBSEMU_SWEEP_EXECUTOR_H_

#include <atomic>
#include <string>
#include <utility>
#include <vector>

namespace verbsemu::sweep {

// The signals the sweep was sent (Ctrl-C, SIGTERM, SIGHUP), as its handler
// counts them: a run gets the first one, a second ends it at once.
struct Interrupts {
  std::atomic<int> count{0};
  std::atomic<int> signal{0};  // the last one
  bool any() const { return count.load() > 0; }
};

struct RunRequest {
  std::vector<std::string> argv;
  // Set in the command's environment on top of the sweep's own.
  std::vector<std::pair<std::string, std::string>> env;
  std::string log_path;  // the command's stdout and stderr, together
  double timeout_s = 0;  // 0: none; then SIGTERM to its process group,
                         // SIGKILL grace_s later
  // The first signal is passed to the command's process group; SIGTERM
  // follows grace_s later and SIGKILL grace_s after that; a second signal
  // sends SIGKILL at once.
  const Interrupts* interrupt = nullptr;
  double grace_s = 5;
};

struct RunOutcome {
  bool started = false;  // false: could not fork or exec (see `error`)
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  int leftovers = 0;   // its processes still running when it ended (killed)
  double wall_s = 0;   // fork to reaped, monotonic clock
  std::string output;  // what it wrote (the log's contents)
  std::string error;   // one line when !started

  bool ok() const { return started && signal == 0 && exit_code == 0; }
  std::string Describe() const;  // "exit 3", "killed by SIGSEGV", ...
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual RunOutcome Run(const RunRequest& request) = 0;
};

// fork + execvp on this host, stdin from /dev/null, stdout and stderr into
// the log. The command gets a process group of its own, so a timeout ends
// all it started (mpirun and its ranks); the sweep's signals are passed on
// to it. When it ends, whatever of its group is left is counted, sent
// SIGTERM, then SIGKILL, and reaped (the sweep is their subreaper), so no
// run overlaps the next. `max_output` caps what is kept of the log in
// RunOutcome::output (its end).
class ProcessExecutor : public Executor {
 public:
  static constexpr size_t kDefaultMaxOutput = 16u << 20;  // 16 MiB
  explicit ProcessExecutor(size_t max_output = kDefaultMaxOutput)
      : max_output_(max_output) {}
  RunOutcome Run(const RunRequest& request) override;

 private:
  size_t max_output_;
};

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_EXECUTOR_H_
