#include "shim/internal/counters.h"

#include <pthread.h>

#include <memory>
#include <mutex>
#include <vector>

#include "shim/internal/no_destructor.h"

namespace verbsemu::shim::internal {

__attribute__((tls_model("initial-exec"))) thread_local ThreadCache* tl_cache =
    nullptr;

namespace {

struct CacheRegistry {
  std::mutex mu;
  std::vector<std::unique_ptr<ThreadCache>> caches;
  pthread_key_t key;
  bool key_ok = false;
};

CacheRegistry& Caches() {
  static NoDestructor<CacheRegistry> registry;
  return *registry.get();
}

void ReleaseThreadCache(void* p) {
  auto* c = static_cast<ThreadCache*>(p);
  FoldThreadCache(c);
  // Release: the reclaimer that sees nullptr (acquire) then frees the
  // stats, after the fold's adds into them.
  c->stats.store(nullptr, std::memory_order_release);
  c->wr_qpx = nullptr;
  c->wr_q = nullptr;
  tl_cache = nullptr;
  c->in_use.store(false, std::memory_order_release);
}

}  // namespace

QpCounters& QpCounters::operator+=(const QpCounters& o) {
#define VERBSEMU_ADD(name) name += o.name;
  VERBSEMU_QP_COUNTERS(VERBSEMU_ADD)
#undef VERBSEMU_ADD
  return *this;
}

void QpStats::Reset() {
#define VERBSEMU_RESET(name) name.Reset();
  VERBSEMU_QP_COUNTERS(VERBSEMU_RESET)
#undef VERBSEMU_RESET
}

QpCounters QpStats::Snapshot() const {
  QpCounters c;
#define VERBSEMU_GET(name) \
  c.name = name.Get();  // NOLINT(bugprone-macro-parentheses)
  VERBSEMU_QP_COUNTERS(VERBSEMU_GET)
#undef VERBSEMU_GET
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& tc : r.caches) {
    if (tc->stats.load(std::memory_order_relaxed) != this) continue;
#define VERBSEMU_CACHED(name) \
  c.name += tc->name.load(std::memory_order_relaxed);
    VERBSEMU_QP_HOT_COUNTERS(VERBSEMU_CACHED)
#undef VERBSEMU_CACHED
  }
  return c;
}

void PublishThreadCache(ThreadCache* c) {
  c->unpublished = 0;
  const uint64_t wrs = c->wrs.load(std::memory_order_relaxed);
  const uint64_t bytes = c->bytes.load(std::memory_order_relaxed);
  const QpStats* s = c->stats.load(std::memory_order_relaxed);
  std::atomic<uint64_t>* to =
      s != nullptr ? s->publish_to.load(std::memory_order_acquire) : nullptr;
  if (to != nullptr &&
      (wrs != c->published_wrs || bytes != c->published_bytes)) {
    // Each WR is at most one packet more than its bytes fill; the +1 covers
    // rounding the byte sum down.
    const uint64_t packets = (wrs - c->published_wrs) +
                             ((bytes - c->published_bytes) >>
                              s->packet_shift.load(std::memory_order_relaxed)) +
                             1;
    to->fetch_add(packets, std::memory_order_release);
  }
  c->published_wrs = wrs;
  c->published_bytes = bytes;
}

void FoldThreadCache(ThreadCache* c) {
  PublishThreadCache(c);
  c->published_wrs = 0;
  c->published_bytes = 0;
  QpStats* old = c->stats.load(std::memory_order_relaxed);
#define VERBSEMU_FOLD(name)                                 \
  if (old != nullptr) {                                     \
    old->name.Add(c->name.load(std::memory_order_relaxed)); \
  }                                                         \
  c->name.store(0, std::memory_order_relaxed);
  VERBSEMU_QP_HOT_COUNTERS(VERBSEMU_FOLD)
#undef VERBSEMU_FOLD
}

__attribute__((noinline)) ThreadCache* NewThreadCache() {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.key_ok) r.key_ok = pthread_key_create(&r.key, ReleaseThreadCache) == 0;
  ThreadCache* c = nullptr;
  for (auto& existing : r.caches) {
    if (!existing->in_use.load(std::memory_order_acquire)) {
      c = existing.get();
      c->in_use.store(true, std::memory_order_relaxed);
      break;
    }
  }
  if (c == nullptr) {
    r.caches.push_back(std::make_unique<ThreadCache>());
    c = r.caches.back().get();
  }
  if (r.key_ok) pthread_setspecific(r.key, c);
  tl_cache = c;
  return c;
}

void ClearThreadCaches(bool forget_qps) {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& c : r.caches) {
#define VERBSEMU_ZERO(name) c->name.store(0);
    VERBSEMU_QP_HOT_COUNTERS(VERBSEMU_ZERO)
#undef VERBSEMU_ZERO
    c->unpublished = 0;
    c->published_wrs = 0;
    c->published_bytes = 0;
    c->wait_pending = false;
    if (forget_qps) {
      c->stats.store(nullptr);
      c->wr_qpx = nullptr;
      c->wr_q = nullptr;
    }
  }
}

bool ThreadCachesReference(const QpStats* stats) {
  CacheRegistry& r = Caches();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& c : r.caches) {
    if (c->stats.load(std::memory_order_acquire) == stats) return true;
  }
  return false;
}

void LockThreadCaches() { Caches().mu.lock(); }
void UnlockThreadCaches() { Caches().mu.unlock(); }

}  // namespace verbsemu::shim::internal
