// The state of the defer latency mode (defer.h): a FIFO of held-back posts
// per QP, and per device context the list of its deferring QPs, which a
// poll of any of the context's CQs drains: an application's progress loop
// polls its receive CQ as often as its send CQ (perftest's latency tests,
// UCX), and either is a moment its own thread can hand posts over.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "shim/internal/counters.h"
#include "shim/internal/deferred_post.h"

namespace verbsemu::shim::internal {

struct QpState;
constexpr uint64_t kNeverDue = ~uint64_t{0};

// Why a QP waits by spinning although the mode is defer (the report counts
// them): the progress thread must not post on a QP of a thread domain
// without locks, and mlx5dv_wr_* calls need the provider's batch open.
enum class DeferFallback : uint8_t { kNone, kThreadDomain, kDirectVerbs };

struct DeferList;

// The defer mode's process-wide counts, for the report: X(name, what).
#define VERBSEMU_DEFER_COUNTERS(X)                                          \
  X(qps, "QPs deferring")                                                   \
  X(spin_td_qps, "QPs spinning instead: thread domain without locks")       \
  X(spin_dv_qps, "QPs spinning instead: made or driven through mlx5dv")     \
  X(handed_posts, "posts handed to the provider")                           \
  X(room_retries, "hand-overs retried: the provider's send queue was full") \
  X(refused_wrs, "WRs the provider refused after their post returned")      \
  X(early_modify, "posts handed over early: before ibv_modify_qp")          \
  X(early_destroy, "posts handed over early: before ibv_destroy_qp")        \
  X(early_exit, "posts handed over early: at exit")

struct DeferCounters {
#define VERBSEMU_FIELD(name, what) Counter name;
  VERBSEMU_DEFER_COUNTERS(VERBSEMU_FIELD)
#undef VERBSEMU_FIELD
  void Reset() {
#define VERBSEMU_RESET(name, what) name.Reset();
    VERBSEMU_DEFER_COUNTERS(VERBSEMU_RESET)
#undef VERBSEMU_RESET
  }
};

struct DeferQueue {
  // When the oldest held post is due (kNeverDue: none); read without the
  // lock by drainers deciding whether to take it.
  std::atomic<uint64_t> head_due{kNeverDue};
  std::mutex mu;
  std::deque<std::unique_ptr<DeferredPost>> fifo;    // under mu
  std::vector<std::unique_ptr<DeferredPost>> spare;  // under mu
  uint64_t last_due = 0;  // under mu: posts leave in order
  size_t held_wrs = 0;    // under mu
  // From the QP's creation: ENOMEM once the queue alone holds a send
  // queue's worth, EINVAL for more SGEs than the QP has (0: not known).
  uint32_t max_send_wr = 0;
  uint32_t max_send_sge = 0;
  DeferList* list = nullptr;  // its context's list
};

struct DeferList {
  // The earliest head_due of its QPs, lowered by pushes (compare-and-swap)
  // and recomputed by each drain.
  std::atomic<uint64_t> earliest{kNeverDue};
  std::mutex mu;
  std::vector<QpState*> qps;  // under mu
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_
