// Log-linear buckets of a 64-bit value: 2^SubBits buckets per power of two
// (within 2^-SubBits of the value), values below 2^SubBits exact. Lock-free
// counts, relaxed atomic adds: the report's distributions (wait lateness,
// drawn delays).
#ifndef VERBSEMU_SHIM_INTERNAL_LOG_BUCKETS_H_
#define VERBSEMU_SHIM_INTERNAL_LOG_BUCKETS_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "shim/internal/counters.h"

namespace verbsemu::shim::internal {

template <int SubBits>
class LogBuckets {
 public:
  static constexpr int kBuckets = (64 - SubBits + 1) << SubBits;

  static int BucketOf(uint64_t v) {
    if (v < (uint64_t{1} << SubBits)) return static_cast<int>(v);
    const int msb = 63 - __builtin_clzll(v);
    const int sub = static_cast<int>((v >> (msb - SubBits)) &
                                     ((uint64_t{1} << SubBits) - 1));
    return ((msb - SubBits + 1) << SubBits) + sub;
  }
  // The largest value in `bucket`.
  static uint64_t UpperEdge(int bucket) {
    if (bucket < (1 << SubBits)) return static_cast<uint64_t>(bucket);
    const int msb = (bucket >> SubBits) + SubBits - 1;
    const uint64_t sub = static_cast<uint64_t>(bucket & ((1 << SubBits) - 1));
    if (msb >= 63 && sub == (1 << SubBits) - 1) return UINT64_MAX;
    const uint64_t base = (uint64_t{1} << msb) + (sub << (msb - SubBits));
    return base + (uint64_t{1} << (msb - SubBits)) - 1;
  }

  void Add(uint64_t v) { buckets_[static_cast<size_t>(BucketOf(v))].Add(1); }
  void Reset() {
    for (Counter& b : buckets_) b.Reset();
  }
  // Upper edge of the bucket holding the value of rank ceil(q * n), n the
  // values added so far (the caller counts them).
  uint64_t Quantile(double q, uint64_t n) const {
    if (n == 0) return 0;
    const auto rank = std::max<uint64_t>(
        1, static_cast<uint64_t>(
               std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(n))));
    uint64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
      seen += buckets_[static_cast<size_t>(b)].Get();
      if (seen >= rank) return UpperEdge(b);
    }
    return UINT64_MAX;
  }

 private:
  std::array<Counter, kBuckets> buckets_;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_LOG_BUCKETS_H_
