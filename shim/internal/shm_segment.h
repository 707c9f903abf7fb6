// Node-wide state in POSIX shared memory: a named object of one layout,
// created zero-filled by whichever process maps it first, mapped by every
// shim process of the user on the node. What lives there is lock-free
// (atomics only): a process can die at any instruction, and nothing it
// held may stall the others.
#ifndef VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_
#define VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

namespace verbsemu::shim::internal {

// Maps the object `name` (shm_open's, "/..."), created and zero-filled at
// `bytes` if new. nullptr, with `why`, when it cannot.
void* MapSharedObject(const std::string& name, size_t bytes, std::string* why);
void UnmapSharedObject(void* addr, size_t bytes);

template <class T>
struct SharedObjectUnmap {
  void operator()(T* p) const { UnmapSharedObject(p, sizeof(T)); }
};
template <class T>
using SharedObjectPtr = std::unique_ptr<T, SharedObjectUnmap<T>>;

// A T in shared memory; all-zero bytes must be a valid new T.
template <class T>
SharedObjectPtr<T> MapShared(const std::string& name, std::string* why) {
  static_assert(std::is_trivially_destructible_v<T>);
  return SharedObjectPtr<T>(
      static_cast<T*>(MapSharedObject(name, sizeof(T), why)));
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_
