#include "emulate/pad_planner.h"

#include <cmath>

namespace verbsemu::emulate {

PadPlanner::PadPlanner(double ratio, uint64_t threshold_bytes,
                       uint32_t datagram_bytes)
    : extra_(ratio > 1 ? ratio - 1 : 0),
      threshold_(threshold_bytes),
      datagram_bytes_(datagram_bytes) {}

uint64_t PadPlanner::OnData(uint64_t bytes) {
  if (!enabled()) return 0;
  owed_ += static_cast<double>(bytes) * extra_;
  const bool large = bytes >= threshold_;
  if (!large && owed_ < static_cast<double>(threshold_)) return 0;
  const double dgram = datagram_bytes_;
  const auto n = static_cast<uint64_t>(std::floor(owed_ / dgram));
  owed_ -= static_cast<double>(n) * dgram;
  return n;
}

}  // namespace verbsemu::emulate
