// Padding planner (InterSense section 3): to make a link of rate B_real look
// like B_target, each message of n bytes is accompanied by
// n * (B_real / B_target - 1) bytes of padding that consume real bandwidth.
// Padding for small messages accumulates until a threshold and goes out as one
// batch; padding for a large message goes out before it. Padding leaves as
// whole datagrams; the remainder is carried to the next message, so the total
// is exact over time.
#ifndef VERBSEMU_EMULATE_PAD_PLANNER_H_
#define VERBSEMU_EMULATE_PAD_PLANNER_H_

#include <cstdint>

namespace verbsemu::emulate {

class PadPlanner {
 public:
  PadPlanner() = default;
  // ratio = B_real / B_target (<= 1 disables padding).
  PadPlanner(double ratio, uint64_t threshold_bytes, uint32_t datagram_bytes);

  bool enabled() const { return extra_ > 0 && datagram_bytes_ > 0; }
  uint32_t datagram_bytes() const { return datagram_bytes_; }

  // Number of padding datagrams to send before `bytes` of application data.
  uint64_t OnData(uint64_t bytes);

  // Padding owed but not yet sent (bytes, fractional).
  double owed_bytes() const { return owed_; }

 private:
  double extra_ = 0;  // ratio - 1
  uint64_t threshold_ = 0;
  uint32_t datagram_bytes_ = 0;
  double owed_ = 0;
};

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_PAD_PLANNER_H_
