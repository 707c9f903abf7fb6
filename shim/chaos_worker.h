// The workload of chaos_test: threads posting and polling on their QPs
// while scratch QPs come and go and another thread modifies their QPs,
// each WR accounted for by the sequence number in its wr_id. Of each
// thread's QPs, half post with ibv_post_send and half with ibv_wr_*; half
// complete on a CQ polled with ibv_poll_cq and half on an extended CQ
// polled with ibv_start_poll (the fake device's, fake_cq.h).
#ifndef VERBSEMU_SHIM_CHAOS_WORKER_H_
#define VERBSEMU_SHIM_CHAOS_WORKER_H_

#include <chrono>
#include <cstdint>

#include "shim/internal/fake_device.h"

namespace verbsemu::shim::internal {

constexpr int kChaosThreads = 8;
constexpr int kChaosQpsPerThread = 4;

struct ChaosPlan {
  uint64_t wrs_per_qp = 200;
  uint64_t window = 32;       // WRs a QP has in flight at most
  uint64_t churn_every = 64;  // rounds between scratch QPs
  // A run still going then stops: its WRs not ended count as stuck.
  std::chrono::seconds limit{600};
};

struct ChaosTotals {
  uint64_t posted = 0;      // WRs the application posted
  uint64_t ok = 0;          // completions with IBV_WC_SUCCESS
  uint64_t errors = 0;      // completions with an error status
  uint64_t refused = 0;     // posts that returned an error
  uint64_t recoveries = 0;  // QPs brought from ERR back to RTS
  uint64_t modifies = 0;    // modifies by the other thread
  uint64_t scratch = 0;     // scratch QPs created and destroyed
  uint64_t lost = 0;        // WRs that never ended
  uint64_t duplicated = 0;  // WRs that ended twice
  uint64_t reordered = 0;   // completions before an earlier WR's
  uint64_t stuck = 0;       // WRs not ended when the limit passed
  void Add(const ChaosTotals& o);
};

ChaosTotals RunChaos(FakeDevice& d, const ChaosPlan& plan);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_CHAOS_WORKER_H_
