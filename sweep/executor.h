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

struct RunRequest {
  std::vector<std::string> argv;
  // Set in the command's environment on top of the sweep's own.
  std::vector<std::pair<std::string, std::string>> env;
  std::string log_path;  // the command's stdout and stderr, together
  double timeout_s = 0;  // 0: none; then SIGTERM to its process group,
                         // SIGKILL 5 s later
  // Set by Ctrl-C: the command's process group gets SIGINT once.
  const std::atomic<bool>* interrupt = nullptr;
};

struct RunOutcome {
  bool started = false;  // false: could not fork or exec (see `error`)
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
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
// all it started (mpirun and its ranks); Ctrl-C is passed on to it.
class ProcessExecutor : public Executor {
 public:
  RunOutcome Run(const RunRequest& request) override;
};

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_EXECUTOR_H_
