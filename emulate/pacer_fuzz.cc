// Fuzzes a shared link's schedule as another process (a bug, a stale
// VERBSEMU_SHM_DIR file, a hostile user of the same uid) may have left it:
// any free_at and epoch words, any TSC reading below 2^62, rates from 1 kbit/s
// to 1 Tbit/s at a 1-5 GHz TSC, messages up to 2 GiB. Every reservation must
// release at or after now and no later than now + twice the bound on what
// is booked ahead (1 s, as the shim sets it: an epoch up to that far ahead
// and a schedule up to that far after it) + the message's own time on the
// link, with no undefined behaviour: a schedule in shared memory must never
// hold a process back beyond that.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "emulate/pacer.h"

namespace {

// Reads the input as a stream of words; zeros once it runs out.
class Words {
 public:
  Words(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Next() {
    uint64_t v = 0;
    const size_t n = size_ - at_ < sizeof v ? size_ - at_ : sizeof v;
    if (n > 0) std::memcpy(&v, data_ + at_, n);
    at_ += n;
    return v;
  }
  bool empty() const { return at_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// A value in [lo, hi], spread logarithmically.
double LogBetween(uint64_t w, double lo, double hi) {
  const double u = static_cast<double>(w >> 11) / 9007199254740992.0;
  return lo * std::pow(hi / lo, u);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Words in(data, size);
  const double ticks_per_s = LogBetween(in.Next(), 1e9, 5e9);
  const double target = LogBetween(in.Next(), 1e3, 1e12) / 8 / ticks_per_s;
  const double real =
      (in.Next() & 1) ? target * LogBetween(in.Next(), 1, 1e3) : 0;
  const auto max_ahead = static_cast<uint64_t>(ticks_per_s);  // 1 s
  const auto burst = static_cast<uint64_t>(20e-6 * ticks_per_s);
  verbsemu::emulate::PacerState shared;
  shared.free_at.store(in.Next());
  shared.epoch.store(in.Next());
  // A TSC below 2^62 (48 years at 3 GHz), which moves on or, rarely, back.
  constexpr uint64_t kTscEnd = uint64_t{1} << 62;
  uint64_t now = (in.Next() % kTscEnd) >> (in.Next() & 63);
  std::atomic<uint64_t> resets{0};
  verbsemu::emulate::Pacer pacer(target, real, burst, shared, now, max_ahead,
                                 &resets);
  for (int i = 0; i < 64 && !in.empty(); ++i) {
    const uint64_t step = in.Next();
    if ((step & 0xff) == 0) {
      now -= std::min(now, step >> 8);  // backwards, by up to all of it
    } else {
      now = std::min(kTscEnd - 1, now + (step >> 24));  // up to ~4 s on
    }
    const uint64_t bytes = in.Next() & ((uint64_t{1} << 31) - 1);
    const uint64_t release = pacer.Reserve(now, bytes);
    const double on_link = static_cast<double>(bytes) / target;
    if (release < now) std::abort();
    if (static_cast<double>(release - now) >
        2 * static_cast<double>(max_ahead) + on_link * 1.0001 + 2) {
      std::abort();
    }
  }
  return 0;
}
