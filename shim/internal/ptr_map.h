// Fixed-capacity open-addressing map from object pointers to shim state,
// with lock-free lookups for the data path. Writers (create/destroy, rare)
// serialize on an external mutex. Values are owned elsewhere; a value must
// stay alive while a reader may hold it, which the verbs object lifetime
// rules guarantee (an application may not use a QP or context concurrently
// with destroying it).
#ifndef VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_
#define VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace verbsemu::shim::internal {

template <class V>
class PtrMap {
 public:
  explicit PtrMap(unsigned capacity_log2)
      : mask_((size_t{1} << capacity_log2) - 1),
        shift_(64 - capacity_log2),
        slots_(std::make_unique<Slot[]>(mask_ + 1)) {}

  V* Find(const void* key) const {
    const uintptr_t k = reinterpret_cast<uintptr_t>(key);
    for (size_t i = Hash(k), n = 0; n <= mask_; i = (i + 1) & mask_, ++n) {
      const uintptr_t s = slots_[i].key.load(std::memory_order_acquire);
      if (s == k) return slots_[i].value.load(std::memory_order_relaxed);
      if (s == kEmpty) return nullptr;
    }
    return nullptr;
  }

  // Caller holds the writer lock and has checked that `key` is absent.
  bool Insert(const void* key, V* value) {
    const uintptr_t k = reinterpret_cast<uintptr_t>(key);
    for (size_t i = Hash(k), n = 0; n <= mask_; i = (i + 1) & mask_, ++n) {
      const uintptr_t s = slots_[i].key.load(std::memory_order_relaxed);
      if (s == kEmpty || s == kTombstone) {
        slots_[i].value.store(value, std::memory_order_relaxed);
        slots_[i].key.store(k, std::memory_order_release);
        ++size_;
        return true;
      }
    }
    return false;
  }

  // Caller holds the writer lock.
  void Erase(const void* key) {
    const uintptr_t k = reinterpret_cast<uintptr_t>(key);
    for (size_t i = Hash(k), n = 0; n <= mask_; i = (i + 1) & mask_, ++n) {
      const uintptr_t s = slots_[i].key.load(std::memory_order_relaxed);
      if (s == k) {
        slots_[i].key.store(kTombstone, std::memory_order_release);
        --size_;
        return;
      }
      if (s == kEmpty) return;
    }
  }

  // Caller holds the writer lock and no reader is active.
  void Clear() {
    for (size_t i = 0; i <= mask_; ++i) {
      slots_[i].key.store(kEmpty, std::memory_order_relaxed);
    }
    size_ = 0;
  }

  size_t size() const { return size_; }
  size_t capacity() const { return mask_ + 1; }

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;
  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<V*> value{nullptr};
  };

  size_t Hash(uintptr_t k) const {
    return static_cast<size_t>(((k >> 4) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  size_t mask_;
  unsigned shift_;
  std::unique_ptr<Slot[]> slots_;
  size_t size_ = 0;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_
