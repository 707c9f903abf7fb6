// Taking a lock for a bounded time only, where a thread interrupted inside
// the shim (a signal handler's exit(), a fork) may hold it forever. Tries
// and sleeps rather than std::timed_mutex, whose clock-based wait
// ThreadSanitizer does not follow.
#ifndef VERBSEMU_SHIM_INTERNAL_TRY_FOR_H_
#define VERBSEMU_SHIM_INTERNAL_TRY_FOR_H_

#include <chrono>
#include <thread>

namespace verbsemu::shim::internal {

// Locks `lock` (a std::unique_lock not owning its mutex) unless it stays
// taken until `until`; whether it did.
template <class Lock>
bool TryFor(Lock& lock, std::chrono::steady_clock::time_point until) {
  while (!lock.try_lock()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_TRY_FOR_H_
