// The state of the defer latency mode (defer.h): a FIFO of held-back posts
// per QP, and per device context the list of its deferring QPs, which a
// poll of any of the context's CQs drains: an application's progress loop
// polls its receive CQ as often as its send CQ (perftest's latency tests,
// UCX), and either is a moment its own thread can hand posts over.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "shim/internal/counters.h"
#include "shim/internal/defer_order.h"
#include "shim/internal/defer_sq.h"
#include "shim/internal/defer_synth.h"
#include "shim/internal/deferred_post.h"
#include "shim/internal/ptr_map.h"

namespace verbsemu::shim::internal {

struct QpState;
constexpr uint64_t kNeverDue = ~uint64_t{0};

// Why a QP waits by spinning although the mode is defer (the report counts
// them): the progress thread must not post on a QP of a thread domain
// without locks, nor on any QP of a provider told to take no locks
// (MLX5_SINGLE_THREADED=1, MLX4_SINGLE_THREADED=1: QPs of one context then
// share a doorbell register unlocked); and mlx5dv_wr_* calls need the
// provider's batch open; and with no progress thread (the system's thread
// limit) nothing would hand a post over while the application waits.
enum class DeferFallback : uint8_t {
  kNone,
  kThreadDomain,
  kSingleThreaded,
  kDirectVerbs,
  kNoThread
};

struct DeferList;

// The defer mode's process-wide counts, for the report: X(name, what).
#define VERBSEMU_DEFER_COUNTERS(X)                                          \
  X(qps, "QPs deferring")                                                   \
  X(spin_td_qps, "QPs spinning instead: thread domain without locks")       \
  X(spin_st_qps, "QPs spinning instead: provider without locks")            \
  X(spin_dv_qps,                                                            \
    "QPs spinning instead: made or driven through mlx5dv, or with "         \
    "ibv_wr_flush")                                                         \
  X(spin_nt_qps, "QPs spinning instead: no progress thread (thread limit)") \
  X(handed_posts, "posts handed to the provider")                           \
  X(thread_handed, "of them by the progress thread")                        \
  X(thread_wakes, "progress-thread wakes")                                  \
  X(thread_spun_us, "us the progress thread spun")                          \
  X(room_retries, "hand-overs retried: the provider's send queue was full") \
  X(refused_wrs, "WRs the provider refused after their post returned")      \
  X(flushed_wrs,                                                            \
    "held WRs completed with a flush error: their QP moved to ERR")         \
  X(dropped_wrs,                                                            \
    "held WRs dropped: their QP was destroyed, reset, or the process "      \
    "exited")                                                               \
  X(refused_at_post, "posts refused at once as the provider would")         \
  X(early_modify, "posts handed over early: before ibv_modify_qp")          \
  X(early_destroy, "posts handed over early: before ibv_destroy_qp")        \
  X(early_exit, "posts handed over early: at exit")                         \
  X(exit_skipped_qps,                                                       \
    "QPs the exit flush skipped: a lock stayed held (a thread interrupted " \
    "inside the shim)")

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
  // A UD QP under VERBSEMU_TOPOLOGY (defer_order.h): posts leave in order
  // per lane (the latency law of their destination), each lane's last due
  // (and a batch's, which every later post follows) under mu; and the
  // order its completions are returned in. Null: one lane (last_due).
  std::unique_ptr<CompletionOrder> order;
  std::vector<std::pair<const void*, uint64_t>> lane_due;
  uint64_t lane_floor = 0;
  // What a post is checked against (defer_sq.h): the caps from the QP's
  // creation, its provider's rules, and its state (under mu).
  SqLimits limits;
  bool sig_all = true;  // every WR signaled (or not known)
  // The shim's completions for its WRs still to be polled: while there
  // are any, its later posts wait (they would complete before them).
  std::atomic<int64_t> synth_owed{0};
  // The provider's send queue as far as the shim knows.
  SqWindow sq;
  std::vector<uint32_t> signaled_scratch;  // under mu
  DeferList* list = nullptr;               // its context's list
};

// About 50 us at 2-4 GHz: an application calling less often than that is
// not counted on to hand over (AppWillHandOver).
constexpr uint64_t kMaxCallGap = uint64_t{1} << 17;

struct DeferList {
  // The earliest head_due of its QPs, lowered by pushes (compare-and-swap)
  // and recomputed by each drain.
  std::atomic<uint64_t> earliest{kNeverDue};
  // Application calls under way on the context (polls, deferred posts):
  // the progress thread leaves the hand-overs to them meanwhile, since the
  // call hands over what is due on its way out or at the next poll, and
  // two threads posting on one QP contend for its locks (under QEMU TCG a
  // contended hand-over cost more than the post itself: 62% of the native
  // message rate in ib_write_bw against 98% without the thread).
  std::atomic<uint32_t> app_calls{0};
  // When the last application call began, and the usual gap between two
  // (a moving average): an application that polls every few microseconds
  // will hand over what falls due, so the thread waits four gaps for it.
  std::atomic<uint64_t> last_call{0};
  std::atomic<uint64_t> call_gap{0};
  std::mutex mu;
  std::vector<QpState*> qps;  // under mu
  // Its QPs' queues by QP number + 2, for polled completions (writers
  // hold E().mu).
  PtrMap<DeferQueue> by_qpn{10};
  // Completions the shim made for its QPs' WRs (defer_synth.h), by CQ.
  SyntheticCompletions synth;
  // The provider's completions of QPs whose posts pass each other, in
  // post order (defer_order.h), by CQ; and how many of its QPs sort.
  SyntheticCompletions sorted;
  std::atomic<uint32_t> sorting{0};
};

// A QP number as a PtrMap key (0 and 1 are the map's own); never
// dereferenced.
inline const void* QpnKey(uint32_t qpn) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a key, not an address
  return reinterpret_cast<const void*>(uintptr_t{qpn} + 2);
}

// Lowers `*at` to `due` unless it is already earlier.
inline void LowerTo(std::atomic<uint64_t>* at, uint64_t due) {
  uint64_t seen = at->load();
  while (due < seen && !at->compare_exchange_weak(seen, due)) {
  }
}

// Counts an application call on `list` (null: none) while it lives; `now`
// is the TSC the call read on entry (one clock read per call).
class AppCall {
 public:
  AppCall(DeferList* list, uint64_t now) : list_(list) {
    if (list_ == nullptr) return;
    list_->app_calls.fetch_add(1);
    const uint64_t last = list_->last_call.exchange(now);
    // Clamped: one long pause must not make a polling application look
    // idle for long (the thread then waits at most four clamps for it).
    const uint64_t gap = std::min(now > last ? now - last : 0, kMaxCallGap);
    const uint64_t avg = list_->call_gap.load(std::memory_order_relaxed);
    list_->call_gap.store(avg - avg / 8 + gap / 8, std::memory_order_relaxed);
  }
  ~AppCall() {
    if (list_ != nullptr) list_->app_calls.fetch_sub(1);
  }
  AppCall(const AppCall&) = delete;
  AppCall& operator=(const AppCall&) = delete;

 private:
  DeferList* list_;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_QUEUE_H_
