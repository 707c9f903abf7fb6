// Node-wide state in shared memory: a named object of one layout, created
// zero-filled by whichever process maps it first, mapped by every shim
// process of the user (and job) on the node. What lives there is lock-free
// (atomics only): a process can die at any instruction, and nothing it
// held may stall the others.
#ifndef VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_
#define VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace verbsemu::shim::internal {

// Maps the object `name` ("/...", segment_key.h), created and zero-filled
// at `bytes` if new: a shm_open object when `dir` is empty, else the file
// dir + name (VERBSEMU_SHM_DIR). Its pages are allocated before it is
// mapped (posix_fallocate), so a full file system is an error here and
// never a SIGBUS later. An object this process's user does not own, that
// group or others may access, or that has neither 0 bytes nor `bytes`, is
// refused. nullptr, with one line in `why`, when it cannot be had.
//
// Its first 8 bytes are a tag (segment magic and layout version, SegmentTag)
// that the first mapper sets: a segment with another tag (garbage, another
// layout) is refused as well.
void* MapSharedObject(const std::string& dir, const std::string& name,
                      size_t bytes, uint64_t tag, std::string* why);
// Why an object with status `st` is not `user`'s own private object of 0 or
// `bytes` bytes; "" when it is (what MapSharedObject checks, with the
// process's effective uid).
std::string SegmentRefusal(const struct stat& st, uid_t user, size_t bytes);
void UnmapSharedObject(void* addr, size_t bytes);
// Removes the object (tests, and a clean-up).
void UnlinkSharedObject(const std::string& dir, const std::string& name);

template <class T>
struct SharedObjectUnmap {
  void operator()(T* p) const { UnmapSharedObject(p, sizeof(T)); }
};
template <class T>
using SharedObjectPtr = std::unique_ptr<T, SharedObjectUnmap<T>>;

// What a segment's first word holds: "VEMU", then the layout's kind and
// version. Change the version (and the name's -vN) with any layout change.
constexpr uint64_t SegmentTag(uint16_t kind, uint16_t version) {
  return (uint64_t{0x56454D55} << 32) | (uint64_t{kind} << 16) | version;
}

// A T in shared memory; all-zero bytes must be a valid new T, whose first
// member is `std::atomic<uint64_t> tag` and T::kTag its value.
template <class T>
SharedObjectPtr<T> MapShared(const std::string& dir, const std::string& name,
                             std::string* why) {
  static_assert(std::is_trivially_destructible_v<T>);
  static_assert(std::is_standard_layout_v<T> && offsetof(T, tag) == 0 &&
                sizeof(T::tag) == sizeof(uint64_t));
  return SharedObjectPtr<T>(
      static_cast<T*>(MapSharedObject(dir, name, sizeof(T), T::kTag, why)));
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_SHM_SEGMENT_H_
