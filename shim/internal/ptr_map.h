// Fixed-capacity open-addressing map from object pointers to shim state,
// with lock-free lookups for the data path. Writers (create/destroy, rare)
// serialize on an external mutex; tombstones are reclaimed (at the end of a
// probe run, or by a rebuild that readers detect with a version counter), so
// churn never degrades lookups. Values are owned elsewhere; a value must
// stay alive while a reader may hold it, which the verbs object lifetime
// rules guarantee (an application may not use a QP or context concurrently
// with destroying it).
#ifndef VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_
#define VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace verbsemu::shim::internal {

template <class V>
class PtrMap {
 public:
  explicit PtrMap(unsigned capacity_log2)
      : mask_((size_t{1} << capacity_log2) - 1),
        shift_(64 - capacity_log2),
        slots_(std::make_unique<Slot[]>(mask_ + 1)) {}

  // Lock-free; retries while the writer rebuilds the table (a seqlock).
  V* Find(const void* key) const {
    for (;;) {
      const uint64_t before = version_.load(std::memory_order_acquire);
      if ((before & 1) != 0) continue;  // a rebuild is under way
      // Probe's loads are acquire: the check below cannot move before them,
      // and a slot the rebuild changed carries the odd version with it.
      V* found = Probe(reinterpret_cast<uintptr_t>(key));
      if (version_.load(std::memory_order_acquire) == before) return found;
    }
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
        if (s == kTombstone) --tombstones_;
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
        ++tombstones_;
        ReclaimTombstonesBefore((i + 1) & mask_);
        if (tombstones_ > (mask_ + 1) / 4) Rebuild();
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
    tombstones_ = 0;
  }

  size_t size() const { return size_; }
  size_t tombstones() const { return tombstones_; }
  size_t capacity() const { return mask_ + 1; }

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;
  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<V*> value{nullptr};
  };

  V* Probe(uintptr_t k) const {
    for (size_t i = Hash(k), n = 0; n <= mask_; i = (i + 1) & mask_, ++n) {
      const uintptr_t s = slots_[i].key.load(std::memory_order_acquire);
      if (s == k) return slots_[i].value.load(std::memory_order_acquire);
      if (s == kEmpty) return nullptr;
    }
    return nullptr;
  }

  // Re-inserts every live key into a table without tombstones. Readers that
  // overlap it see the version change and look again.
  void Rebuild() {
    std::vector<std::pair<uintptr_t, V*>> live;
    live.reserve(size_);
    for (size_t i = 0; i <= mask_; ++i) {
      const uintptr_t s = slots_[i].key.load(std::memory_order_relaxed);
      if (s != kEmpty && s != kTombstone) {
        live.emplace_back(s, slots_[i].value.load(std::memory_order_relaxed));
      }
    }
    // Every slot store below is a release after the odd version: a reader
    // that sees any of them sees the odd version too, and looks again.
    version_.store(version_.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
    for (size_t i = 0; i <= mask_; ++i) {
      slots_[i].key.store(kEmpty, std::memory_order_release);
    }
    for (const auto& [k, v] : live) {
      size_t i = Hash(k);
      while (slots_[i].key.load(std::memory_order_relaxed) != kEmpty) {
        i = (i + 1) & mask_;
      }
      slots_[i].value.store(v, std::memory_order_release);
      slots_[i].key.store(k, std::memory_order_release);
    }
    tombstones_ = 0;
    version_.store(version_.load(std::memory_order_relaxed) + 1,
                   std::memory_order_release);
  }

  // Tombstones directly before an empty slot end no probe for a present key
  // (keys sit before the first empty slot of their probe path), so they can
  // become empty again, also under concurrent readers. Without this an
  // rdma_cm server's connection churn would fill the map with tombstones
  // and every miss would scan it whole.
  void ReclaimTombstonesBefore(size_t next) {
    if (slots_[next].key.load(std::memory_order_relaxed) != kEmpty) return;
    for (size_t i = (next - 1) & mask_;
         slots_[i].key.load(std::memory_order_relaxed) == kTombstone;
         i = (i - 1) & mask_) {
      slots_[i].key.store(kEmpty, std::memory_order_release);
      --tombstones_;
    }
  }

  size_t Hash(uintptr_t k) const {
    return static_cast<size_t>(((k >> 4) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  size_t mask_;
  unsigned shift_;
  std::unique_ptr<Slot[]> slots_;
  size_t size_ = 0;
  size_t tombstones_ = 0;
  std::atomic<uint64_t> version_{0};  // odd while Rebuild runs
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PTR_MAP_H_
