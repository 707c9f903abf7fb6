#include "emulate/turns.h"

namespace verbsemu::emulate {

uint64_t TurnWait(const TurnState& turns, uint64_t me, uint64_t now,
                  uint64_t free_at, uint64_t grace) {
  if (me == 0 || grace == 0 ||
      turns.last.load(std::memory_order_relaxed) != me) {
    return 0;
  }
  const uint64_t again = free_at + grace;
  return now < again ? again : 0;
}

}  // namespace verbsemu::emulate
