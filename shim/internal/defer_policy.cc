#include "shim/internal/defer_policy.h"

#include <algorithm>

namespace verbsemu::shim::internal {

void DeferPolicy::Learn(size_t handed) {
  if (handed > 0) {
    grace_ = grace_ / 4 < t_.grace_step ? 0 : grace_ / 4;
  } else {
    grace_ = std::min(t_.max_grace, 2 * grace_ + t_.grace_step);
  }
}

bool DeferPolicy::KeepWatching(uint64_t handed_total) {
  if (handed_total != handed_seen_) {
    handed_seen_ = handed_total;
    idle_looks_ = 0;
    return grace_ > 0;
  }
  return grace_ > 0 && ++idle_looks_ <= kIdleLooks;
}

uint64_t DeferPolicy::NextLook(uint64_t now, uint64_t next_due,
                               bool left_to_app, uint64_t handed_total) {
  uint64_t look = next_due != kNoLook          ? next_due + offset()
                  : KeepWatching(handed_total) ? now + grace_
                                               : kNoLook;
  // Posts left to the application are overdue already: look again one
  // offset from now, no later, so that a post made meanwhile (due later)
  // has no reason to wake the thread.
  if (left_to_app) look = std::max(look, now + offset());
  return look;
}

}  // namespace verbsemu::shim::internal
