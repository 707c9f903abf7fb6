#include "shim/internal/defer_progress.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "emulate/tsc.h"
#include "settings/defer_cpu.h"
#include "shim/internal/defer.h"
#include "shim/internal/faults.h"
#include "shim/internal/no_destructor.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// The spun tail of a wait: at least this, and twice how late sleeps woke,
// up to the cap (beyond it the thread sleeps and the wake is late): the
// thread's WaitPolicy (wait_policy.h), which sleeps whatever is longer.
constexpr double kMinTailNs = 2'000;
constexpr double kMaxTailNs = 200'000;
// The grace a wake that found nothing overdue adds (doubling), its cap,
// and the least the thread aims past a due post (DeferPolicy).
constexpr double kGraceStepNs = 10'000;
constexpr double kMaxGraceNs = 4'000'000;
constexpr double kYieldNs = 1'000;

uint64_t MinEarliest(const std::vector<DeferList*>& cqs) {
  uint64_t m = kNeverDue;
  for (const DeferList* c : cqs) m = std::min(m, c->earliest.load());
  return m;
}

void ExitFlush() { FlushAllDeferred(); }

static_assert(kNoLook == kNeverDue, "the policy's no-look is the queue's");

}  // namespace

namespace {
// Replaced, never destroyed, in a forked child (AfterForkInChild).
std::unique_ptr<DeferProgress>& Instance() {
  static NoDestructor<std::unique_ptr<DeferProgress>> holder;
  static std::unique_ptr<DeferProgress>* const instance = [] {
    *holder.get() = std::make_unique<DeferProgress>();
    return holder.get();
  }();
  return *instance;
}
}  // namespace

DeferProgress& Progress() { return *Instance(); }

bool DeferProgress::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) return true;
  static std::once_flag exit_flush;
  std::call_once(exit_flush, [] { atexit(ExitFlush); });
  stop_ = false;
  running_ = true;
  const emulate::TscCalibration& cal = E().cal;
  policy_ = DeferPolicy({.grace_step = cal.NsToTicks(kGraceStepNs),
                         .max_grace = cal.NsToTicks(kMaxGraceNs),
                         .yield = cal.NsToTicks(kYieldNs)});
  offset_ticks_.store(policy_.offset());
  wait_.sleep_above_ticks = 0;
  wait_.spin_tail_ticks = cal.NsToTicks(kMinTailNs);
  wait_.max_late_ticks = cal.NsToTicks((kMaxTailNs - kMinTailNs) / 2);
  wait_.late_ticks.store(0, std::memory_order_relaxed);
  exited_ = false;
  // Made with every signal blocked, which it keeps: an application's
  // handler never runs on it (one calling exit() would have the exit flush
  // join the thread it runs on, or wait for a lock the thread holds).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const bool started = TryStartThread(&thread_, [this] { Run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (started) return true;
  running_ = false;
  WarnOnce(WarningCode::kDeferNoThread);
  return false;
}

void DeferProgress::Stop(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!running_) return;
  stop_ = true;
  generation_seen_.store(++generation_);
  cv_.notify_all();
  if (std::this_thread::get_id() == thread_.get_id()) return;
  if (limit != std::chrono::milliseconds::max() &&
      !cv_.wait_for(lock, limit, [this] { return exited_; })) {
    return;  // left behind, never joined (the instance is never destroyed)
  }
  lock.unlock();
  if (thread_.joinable()) thread_.join();
  lock.lock();
  running_ = false;
}

void DeferProgress::AppBlocks() {
  app_blocks_.store(true);
  Wake();
}

void DeferProgress::Watch(DeferList* c) {
  std::lock_guard<std::mutex> lock(mu_);
  cqs_.push_back(c);
}

void DeferProgress::Forget() {
  std::lock_guard<std::mutex> lock(mu_);
  cqs_.clear();
}

void DeferProgress::ForEach(const std::function<void(DeferList*)>& f) {
  std::vector<DeferList*> cqs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cqs = cqs_;
  }
  for (DeferList* c : cqs) f(c);
}

void DeferProgress::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation_seen_.store(++generation_);
  }
  cv_.notify_one();
}

void DeferProgress::AfterForkInChild() {
  // The thread and its lock are the parent's (the lock may have been held
  // at the fork): the child leaves them be and starts afresh when it
  // defers.
  // Set aside, never destroyed, and kept reachable, so a leak checker in
  // the child does not report it.
  static NoDestructor<std::vector<std::unique_ptr<DeferProgress>>> set_aside;
  set_aside.get()->push_back(std::move(Instance()));
  Instance() = std::make_unique<DeferProgress>();
}

void DeferProgress::Run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  pthread_setname_np(pthread_self(), "verbsemu-defer");
  std::string placed = PlaceThisThread(E().settings.defer_cpu);
  if (!placed_.load(std::memory_order_relaxed)) {
    placement_ = std::move(placed);
    placed_.store(true, std::memory_order_release);
  }
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const uint64_t generation = generation_;
    const std::vector<DeferList*> cqs = cqs_;
    lock.unlock();
    sleeping_until_.store(0);
    uint64_t next = kNeverDue;
    const bool woke_for_posts = woke_for_posts_;
    const uint64_t now = emulate::ReadTsc();
    if (app_blocks_.exchange(false)) policy_.AppBlocks();
    const DrainResult r = DrainAllDue(now, &next);
    E().defer.counts.thread_wakes.Add(1);
    E().defer.counts.thread_handed.Add(r.handed);
    if (woke_for_posts || r.left_to_app) {
      policy_.Learn(r.left_to_app ? 0 : r.handed);
    }
    offset_ticks_.store(policy_.offset(), std::memory_order_relaxed);
    const uint64_t until = policy_.NextLook(
        now, next, r.left_to_app, E().defer.counts.handed_posts.Get());
    // A post pushed during the scan either sees this (and wakes the
    // thread) or is seen by the look below.
    sleeping_until_.store(until);
    const bool missed = !r.left_to_app && MinEarliest(cqs) < next;
    lock.lock();
    woke_for_posts_ = false;
    if (missed || stop_ || generation != generation_) continue;
    woke_for_posts_ = next != kNeverDue;
    WaitFor(lock, until, policy_.grace() == 0, generation);
  }
  sleeping_until_.store(0);
  exited_ = true;
  cv_.notify_all();
}

void DeferProgress::WaitFor(std::unique_lock<std::mutex>& lock, uint64_t until,
                            bool exact, uint64_t generation) {
  auto woken = [&] { return stop_ || generation_ != generation; };
  if (until == kNeverDue) {
    cv_.wait(lock, woken);
    return;
  }
  const emulate::TscCalibration& cal = E().cal;
  const uint64_t now = emulate::ReadTsc();
  if (until <= now) return;
  // Not exact: the whole wait sleeps (a wake for a grace can be late).
  const uint64_t asked = exact ? wait_.SleepTicks(until - now) : until - now;
  if (asked > 0) {
    const auto ns =
        std::chrono::nanoseconds(static_cast<int64_t>(cal.TicksToNs(asked)));
    if (cv_.wait_for(lock, ns, woken)) return;
    wait_.NoteWake(asked, emulate::ReadTsc() - now);
    return;
  }
  lock.unlock();
  uint64_t spun_until = now;
  while ((spun_until = emulate::ReadTsc()) < until &&
         generation_seen_.load(std::memory_order_relaxed) == generation) {
    if (cal.spin_pause) emulate::CpuRelax();
  }
  E().defer.counts.thread_spun_us.Add(
      static_cast<uint64_t>(cal.TicksToNs(spun_until - now) / 1000));
  lock.lock();
}

}  // namespace verbsemu::shim::internal
