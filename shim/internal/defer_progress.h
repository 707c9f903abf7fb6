// The defer mode's progress thread: hands over held posts whose
// application makes no verbs call when they fall due (one blocked in
// ibv_get_cq_event, one busy-waiting on memory for an RDMA write, as
// perftest's ib_write_lat does, one that only posts). It learns whether it
// is needed: while its wakes find posts overdue, it aims at the due time,
// sleeping and then spinning the last stretch, whose length follows how
// late its sleeps wake (a guest under QEMU TCG wakes tens of microseconds
// late); each wake that finds the application already handed them over
// doubles a grace it sleeps past the due time (up to 4 ms), without
// spinning, and each that finds them still held quarters it: a spinning
// helper would take a core from the application, or from a soft device
// such as rxe.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_PROGRESS_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shim/internal/defer_policy.h"
#include "shim/internal/defer_queue.h"
#include "shim/internal/wait_policy.h"

namespace verbsemu::shim::internal {

class DeferProgress {
 public:
  // Starts the thread once (and registers the exit flush); false, with
  // one warning per process, when no thread can be created.
  bool Start();
  // Stops and joins it; Start starts it again. With a `limit` (the exit
  // flush), waits that long at most for it to stop: a thread blocked on a
  // lock an interrupted application thread holds is left behind. Called
  // on the thread itself (an exit() in a signal handler it ran), it only
  // tells it to stop.
  void Stop(std::chrono::milliseconds limit = std::chrono::milliseconds::max());
  // The application is about to block (defer.h DeferBeforeBlock): the
  // thread drops its grace and hands each post over when due.
  void AppBlocks();
  // Adds a CQ list to the ones the thread drains.
  void Watch(DeferList* c);
  void Forget();
  void ForEach(const std::function<void(DeferList*)>& f);
  // A post became its QP's head, due at `due`: wakes the thread if
  // DeferPolicy::PostWakes says so.
  void Notify(uint64_t due) {
    if (DeferPolicy::PostWakes(due,
                               offset_ticks_.load(std::memory_order_relaxed),
                               sleeping_until_.load())) {
      Wake();
    }
  }
  // In a forked child: a fresh instance (see Progress()).
  static void AfterForkInChild();
  // Where the thread runs (defer_cpu.h), for the report; "" until it ran.
  std::string Placement() const {
    return placed_.load(std::memory_order_acquire) ? placement_ : "";
  }

 private:
  void Wake();
  void Run();
  // Sleeps toward `until` (TSC), spinning the last stretch when `exact`;
  // returns early when woken.
  void WaitFor(std::unique_lock<std::mutex>& lock, uint64_t until, bool exact,
               uint64_t generation);

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;  // under mu_: bumped by each wake
  std::atomic<uint64_t> generation_seen_{0};
  // The TSC the thread sleeps until; 0 while it scans (it scans again
  // before it sleeps), kNeverDue while nothing is held.
  std::atomic<uint64_t> sleeping_until_{0};
  bool running_ = false, stop_ = false;  // under mu_
  bool exited_ = false;                  // under mu_: Run returned
  std::atomic<bool> app_blocks_{false};
  std::vector<DeferList*> cqs_;  // under mu_
  std::thread thread_;
  // The thread's own waits (set at Start): how late its sleeps woke, and
  // so how much of a wait it spins.
  WaitPolicy wait_;
  bool woke_for_posts_ = false;  // the thread's own: its wait aimed at a post
  DeferPolicy policy_{{}};       // the thread's own; set at Start
  std::atomic<uint64_t> offset_ticks_{0};  // policy_.offset(), for Notify
  std::string placement_;                  // written once, then placed_
  std::atomic<bool> placed_{false};
};

DeferProgress& Progress();

// The progress thread's scan: drains every list due by `now` that no
// application call is at, lowers `*next` to the earliest post still held.
struct DrainResult {
  size_t handed = 0;         // posts this scan handed over
  bool left_to_app = false;  // due posts left to a call under way
};
DrainResult DrainAllDue(uint64_t now, uint64_t* next);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_PROGRESS_H_
