// What a sweep holds while it runs: its signal handlers (SIGINT, SIGTERM
// and SIGHUP are counted, for the run under way to be passed on, rather
// than ending the sweep) and the lock on its directory (one sweep at a
// time in a directory).
#ifndef VERBSEMU_SWEEP_SESSION_H_
#define VERBSEMU_SWEEP_SESSION_H_

#include <string>

#include "sweep/executor.h"

namespace verbsemu::sweep {

// The signals received since the last SignalGuard was made.
const Interrupts& SweepInterrupts();

class SignalGuard {
 public:
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
};

// flock(DIR/.lock, LOCK_EX | LOCK_NB), released when destroyed.
class DirLock {
 public:
  DirLock() = default;
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  // false and one line in `why` when another sweep holds it, or it cannot
  // be made.
  bool Take(const std::string& dir, std::string* why);

  static constexpr const char* kName = ".lock";

 private:
  int fd_ = -1;
};

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_SESSION_H_
