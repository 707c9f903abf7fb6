// A mutex that knows whether the calling thread holds it. The defer mode's
// drainers try a QP's batch lock, which may be held by the very thread that
// drains (it polls between wr_start and wr_complete): try_lock on a
// std::mutex the caller already holds is undefined, so they ask first.
#ifndef VERBSEMU_SHIM_INTERNAL_OWNED_MUTEX_H_
#define VERBSEMU_SHIM_INTERNAL_OWNED_MUTEX_H_

#include <atomic>
#include <cstdint>
#include <mutex>

namespace verbsemu::shim::internal {

class OwnedMutex {
 public:
  void lock() {
    mu_.lock();
    owner_.store(Self(), std::memory_order_relaxed);
  }
  bool try_lock() {
    if (!mu_.try_lock()) return false;
    owner_.store(Self(), std::memory_order_relaxed);
    return true;
  }
  void unlock() {
    owner_.store(0, std::memory_order_relaxed);
    mu_.unlock();
  }
  // True only while the calling thread holds it: the owner is written by
  // the holder alone and cleared before it lets go, so another thread's
  // value is never this thread's.
  bool HeldByMe() const {
    return owner_.load(std::memory_order_relaxed) == Self();
  }

 private:
  static uintptr_t Self() {
    static thread_local char tag;
    return reinterpret_cast<uintptr_t>(&tag);
  }
  std::mutex mu_;
  std::atomic<uintptr_t> owner_{0};
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_OWNED_MUTEX_H_
