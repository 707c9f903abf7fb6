// Faults the shim must survive, injectable so that tests can make them
// happen: a thread that cannot be created (a pids cgroup, ulimit -u), a TSC
// calibration that fails, memory that runs out (registering an object, holding
// a post). Each fault's handling lives where the fault arises; this only says
// whether a test asked for it, and gives the shim's threads one way to be
// started.
#ifndef VERBSEMU_SHIM_INTERNAL_FAULTS_H_
#define VERBSEMU_SHIM_INTERNAL_FAULTS_H_

#include <functional>
#include <thread>

namespace verbsemu::shim::internal {

enum class Fault {
  kThreadStart,  // std::thread creation fails (std::system_error)
  kCalibration,  // the TSC calibration throws ("clock did not advance")
  kOutOfMemory,  // registering an object or holding a post throws bad_alloc
  kCount,
};

// Whether a test injected `f` (a relaxed load: cheap on the post path).
bool FaultInjected(Fault f) noexcept;
// Tests: make `f` happen (true) at every chance until cleared.
void InjectFaultForTesting(Fault f, bool on) noexcept;

// Starts `body` on *t; false when no thread can be created (the system's
// limit, or Fault::kThreadStart), *t then left empty.
bool TryStartThread(std::thread* t, std::function<void()> body) noexcept;

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAULTS_H_
