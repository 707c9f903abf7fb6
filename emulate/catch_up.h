// Where a sender's next message starts on a schedule (a virtual link's, a
// gap schedule's) that is next free at `scheduled`: behind what is booked;
// for a sender at most `window` behind the schedule (preempted, or busy
// with its own post), on the schedule, so it gets the lost time back;
// further behind, the schedule was idle and lends nothing: the message
// starts at `now`, as on a wire. The pacer and the gap clock share it.
#ifndef VERBSEMU_EMULATE_CATCH_UP_H_
#define VERBSEMU_EMULATE_CATCH_UP_H_

#include <cstdint>

namespace verbsemu::emulate {

constexpr uint64_t CatchUpStart(uint64_t scheduled, uint64_t now,
                                uint64_t window) {
  return scheduled >= now || now - scheduled <= window ? scheduled : now;
}

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_CATCH_UP_H_
