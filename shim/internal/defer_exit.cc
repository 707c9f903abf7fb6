// The defer mode at exit, in tests and in a forked child (defer.h).
//
// The exit flush runs in atexit, which may be reached from a signal
// handler's exit() that interrupted an application thread inside the shim
// with one of its locks held: every lock is only tried, for a bounded
// time, and a QP whose lock stays held is skipped with a line that says
// how many were.
#include <chrono>
#include <mutex>
#include <string>

#include "shim/internal/defer.h"
#include "shim/internal/defer_progress.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/state.h"
#include "shim/internal/try_for.h"

namespace verbsemu::shim::internal {
namespace {

// How long the exit flush tries a lock, and the progress thread's stop.
constexpr auto kExitLockLimit = std::chrono::milliseconds(200);

}  // namespace

void FlushAllDeferred() {
  Progress().Stop(kExitLockLimit);
  Engine& e = E();
  const auto until = std::chrono::steady_clock::now() + kExitLockLimit;
  std::unique_lock<std::mutex> lock(e.mu, std::defer_lock);
  if (!TryFor(lock, until)) {
    e.defer.counts.exit_skipped_qps.Add(1);
    Warn(WarningCode::kDeferExitRegistryLocked);
    return;
  }
  size_t skipped = 0;
  for (auto& [key, q] : e.qp_owner) {
    if (q->defer == nullptr) continue;
    std::unique_lock<std::mutex> qlock(q->defer->mu, std::defer_lock);
    if (!TryFor(qlock, until)) {
      ++skipped;
      continue;
    }
    FlushDeferredLocked(q.get(), *q->defer, FlushReason::kExit);
  }
  if (skipped == 0) return;
  e.defer.counts.exit_skipped_qps.Add(skipped);
  Warn(WarningCode::kDeferExitQpsLocked, {std::to_string(skipped)});
}

void ResetDeferLocked() {
  Engine& e = E();
  Progress().Stop();
  Progress().Forget();
  e.defer.lists.Clear();
  e.defer.list_owner.clear();
  e.defer.td_pds.clear();
  e.defer.counts.Reset();
}

void DeferAfterForkInChild() {
  Engine& e = E();
  DeferProgress::AfterForkInChild();
  // The parent's locks may be held by its threads, which the child lacks:
  // its queues and lists are set aside, never destroyed, and kept
  // reachable (a leak checker in the child must not report them).
  static NoDestructor<std::vector<std::unique_ptr<DeferList>>> lists;
  static NoDestructor<std::vector<std::unique_ptr<DeferQueue>>> queues;
  for (auto& owned : e.defer.list_owner)
    lists.get()->push_back(std::move(owned));
  e.defer.list_owner.clear();
  e.defer.lists.Clear();
  for (auto& [key, q] : e.qp_owner) {
    if (q->defer == nullptr) continue;
    queues.get()->push_back(std::move(q->defer));
    q->defer_fallback = DeferFallback::kNone;
  }
}

}  // namespace verbsemu::shim::internal
