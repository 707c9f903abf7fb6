// How the data paths wait for completions: spinning (or yielding) under a
// timeout, so a dead peer cannot hang the run, or sleeping on a completion
// channel (peers under --wait event).
#ifndef VERBSBENCH_INTERNAL_WAIT_H_
#define VERBSBENCH_INTERNAL_WAIT_H_

#include <infiniband/verbs.h>
#include <sched.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "verbsbench/timer.h"

namespace verbsbench::internal {

// Busy-wait guard: throws "timed out <what>" when a wait exceeds the
// timeout. Reads the clock only every 64K spins (every 256 when yielding).
// Inline: it sits in the loops that poll for a message.
class Spinner {
 public:
  Spinner(uint64_t timeout_ticks, const char* what, bool yield = false)
      : deadline_(ReadTicks() + timeout_ticks), what_(what), yield_(yield) {}
  void Spin() {
    if (yield_) sched_yield();
    if ((++spins_ & (yield_ ? 0xff : 0xffff)) == 0 && ReadTicks() > deadline_) {
      throw std::runtime_error(std::string("timed out ") + what_);
    }
  }

 private:
  uint64_t deadline_;
  const char* what_;
  bool yield_;
  uint64_t spins_ = 0;
};

// How one process waits for receives.
struct WaitSettings {
  uint64_t timeout_ticks = 0;
  double timeout_s = 30;
  bool yield = false;
  bool event = false;  // sleep on the CQ's completion channel
};

// Sleeps until `channel` reports a CQ event (acked) or timeout_s passes
// (throws "timed out <what>").
void SleepForCqEvent(ibv_comp_channel* channel, double timeout_s,
                     const char* what);

// Waits until poll(max) has returned n completions in all from `cq`. With
// settings.event it arms the CQ, polls once more (a completion may have
// slipped in) and then sleeps on `channel`.
template <class Poll>
void AwaitCompletions(int n, Poll poll, ibv_cq* cq, ibv_comp_channel* channel,
                      const WaitSettings& settings, const char* what) {
  Spinner spin(settings.timeout_ticks, what, settings.yield);
  while (n > 0) {
    int got = poll(n);
    if (got == 0 && settings.event) {
      if (ibv_req_notify_cq(cq, 0)) {
        throw std::runtime_error("ibv_req_notify_cq failed");
      }
      got = poll(n);
      if (got == 0) SleepForCqEvent(channel, settings.timeout_s, what);
    } else if (got == 0) {
      spin.Spin();
    }
    n -= got;
  }
}

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_WAIT_H_
