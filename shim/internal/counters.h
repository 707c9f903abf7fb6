// Per-QP counters, listed once. The data path adds to per-thread caches with
// plain relaxed stores (no locked read-modify-write); a thread folds its
// cache into the QP when it moves to another QP, and readers add the cached
// part of a QP to its folded part.
#ifndef VERBSEMU_SHIM_INTERNAL_COUNTERS_H_
#define VERBSEMU_SHIM_INTERNAL_COUNTERS_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>

#include "shim/internal/wr_recording.h"

// Counters bumped on every post, cached per thread: X(name).
#define VERBSEMU_QP_HOT_COUNTERS(X) X(posts) X(wrs) X(bytes) X(delay_ticks)
// Counters bumped rarely (padding, failures, sampled overhead): X(name).
#define VERBSEMU_QP_COLD_COUNTERS(X) \
  X(pad_bytes) X(pad_datagrams) X(failed_posts) X(ovh_ticks) X(ovh_samples)
#define VERBSEMU_QP_COUNTERS(X) \
  VERBSEMU_QP_HOT_COUNTERS(X) VERBSEMU_QP_COLD_COUNTERS(X)

namespace verbsemu::shim::internal {

// A snapshot of one QP's counters.
struct QpCounters {
#define VERBSEMU_FIELD(name) uint64_t name = 0;
  VERBSEMU_QP_COUNTERS(VERBSEMU_FIELD)
#undef VERBSEMU_FIELD
  QpCounters& operator+=(const QpCounters& o);
};

struct Counter {
  std::atomic<uint64_t> v{0};
  void Add(uint64_t x) { v.fetch_add(x, std::memory_order_relaxed); }
  uint64_t Get() const { return v.load(std::memory_order_relaxed); }
  void Reset() { v.store(0, std::memory_order_relaxed); }
};

// The folded counters of one QP.
struct QpStats {
#define VERBSEMU_FIELD(name) Counter name;
  VERBSEMU_QP_COUNTERS(VERBSEMU_FIELD)
#undef VERBSEMU_FIELD
  // Where the QP's request packets are published for the node-wide
  // comparison with the device's own counters (port_traffic.h); null: not
  // published. An upper bound: WRs plus bytes >> packet_shift.
  std::atomic<std::atomic<uint64_t>*> publish_to{nullptr};
  std::atomic<uint8_t> packet_shift{12};  // log2 of the path MTU
  void Reset();
  // Folded plus what threads still hold in their caches.
  QpCounters Snapshot() const;
};

// A thread publishes once its unpublished packets reach this many (with
// 4 KiB packets), so other processes' reports miss at most about this much
// of its traffic.
constexpr uint64_t kPublishEveryPackets = 256;

struct QpState;

// One thread's not yet folded counts, for the QP it posted to last.
struct ThreadCache {
  std::atomic<QpStats*> stats{nullptr};
#define VERBSEMU_FIELD(name) \
  std::atomic<uint64_t> name{0};  // NOLINT(bugprone-macro-parentheses)
  VERBSEMU_QP_HOT_COUNTERS(VERBSEMU_FIELD)
#undef VERBSEMU_FIELD
  std::atomic<bool> in_use{true};
  uint32_t sample_tick = 0;    // owner only
  uint64_t unpublished = 0;    // owner only: packets since the last publish
  uint64_t published_wrs = 0;  // owner only: of this cache's wrs and bytes
  uint64_t published_bytes = 0;
  // Owner only: the last wait, noted after its spin and added to the
  // process's WaitLateness once its post has gone (AddPendingWait), so no
  // atomic add runs between a deadline and the real post.
  uint64_t wait_ticks = 0;
  uint64_t wait_late_ticks = 0;
  bool wait_pending = false;
  ibv_qp_ex* wr_qpx = nullptr;  // owner only: QP of the open wr_* batch
  QpState* wr_q = nullptr;
  WrRecordings recordings;  // owner only: its recorded wr_* batches
};

__attribute__((
    tls_model("initial-exec"))) extern thread_local ThreadCache* tl_cache;

ThreadCache* NewThreadCache();  // registers the calling thread
// Owner only. Publishing adds what the cache counted since its last publish
// to its QP's publish_to; folding publishes first.
void FoldThreadCache(ThreadCache* c);
void PublishThreadCache(ThreadCache* c);

inline ThreadCache* Cache() {
  ThreadCache* c = tl_cache;
  return c != nullptr ? c : NewThreadCache();
}

// Adds one post of `wrs` WRs and `bytes` to `stats`, through the cache.
inline void Account(ThreadCache* c, QpStats* stats, uint64_t wrs,
                    uint64_t bytes, uint64_t delay) {
  if (c->stats.load(std::memory_order_relaxed) != stats) {
    FoldThreadCache(c);
    // Release: a reclaimer that sees the new pointer sees the fold's adds.
    c->stats.store(stats, std::memory_order_release);
  }
  const auto bump = [](std::atomic<uint64_t>& a, uint64_t x) {
    a.store(a.load(std::memory_order_relaxed) + x, std::memory_order_relaxed);
  };
  bump(c->posts, 1);
  bump(c->wrs, wrs);
  bump(c->bytes, bytes);
  if (delay != 0) bump(c->delay_ticks, delay);
  c->unpublished += wrs + (bytes >> 12);
  if (c->unpublished >= kPublishEveryPackets) [[unlikely]] {
    PublishThreadCache(c);
  }
}

// True when some thread's cache still names `stats` (its QP's state must
// stay allocated until no cache does).
bool ThreadCachesReference(const QpStats* stats);

// Fork and tests: zero every cache; with `forget_qps`, detach them too.
void ClearThreadCaches(bool forget_qps);
// Fork: the registry lock, held across fork() so the child's is consistent.
void LockThreadCaches();
void UnlockThreadCaches();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_COUNTERS_H_
