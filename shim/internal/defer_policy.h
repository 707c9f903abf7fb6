// The defer progress thread's timing decisions, apart from its thread and
// clock so that they can be tested step by step (a thread's wakes under a
// loaded machine cannot). All times are TSC ticks.
//
// The thread learns whether it is needed: each wake that finds the
// application already handed its due posts over doubles a grace it sleeps
// past the due time (plus a step, up to a cap); each that finds them still
// held quarters it (below one step: none, the thread aims at the due time).
// An application that polls often settles the grace near its poll
// interval; one that never does, at none.
#ifndef VERBSEMU_SHIM_INTERNAL_DEFER_POLICY_H_
#define VERBSEMU_SHIM_INTERNAL_DEFER_POLICY_H_

#include <cstddef>
#include <cstdint>

namespace verbsemu::shim::internal {

// No post held, no look planned (the same as kNeverDue).
inline constexpr uint64_t kNoLook = ~uint64_t{0};

class DeferPolicy {
 public:
  struct Ticks {
    uint64_t grace_step = 0;  // what a wake that was not needed adds
    uint64_t max_grace = 0;
    // Even at no grace the thread aims this far past the due time, so an
    // application polling at that moment hands its own posts over and the
    // thread learns it is not needed.
    uint64_t yield = 0;
  };
  // After this many looks in a row with no hand-over anywhere, the thread
  // holding nothing sleeps until a post wakes it.
  static constexpr uint32_t kIdleLooks = 16;

  explicit DeferPolicy(Ticks t) : t_(t) {}

  uint64_t grace() const { return grace_; }
  // How far past a due post the thread aims.
  uint64_t offset() const { return grace_ > t_.yield ? grace_ : t_.yield; }

  // After a wake that aimed at posts: `handed` of them were still held and
  // went from the thread.
  void Learn(size_t handed);
  // The application is about to block in a wait: nobody polls, so the
  // thread drops its grace and aims at the due times.
  void AppBlocks() { grace_ = 0; }

  // The thread's next look after a scan at `now`: `next_due` is the
  // earliest post still held (kNoLook: none), `left_to_app` whether due
  // posts were left to an application call under way, `handed_total` the
  // hand-overs counted so far by anyone. kNoLook: sleep until woken.
  uint64_t NextLook(uint64_t now, uint64_t next_due, bool left_to_app,
                    uint64_t handed_total);

  // Whether a post that became its QP's head, due at `due`, wakes a thread
  // that plans to look at `planned` (0: it is scanning, and will see it)
  // with `offset`. Within two offsets the post waits for the planned look:
  // a post that is overdue when it is queued (its application spent the
  // delay handing earlier ones over) is its application's to hand over at
  // its next call, and waking the thread for each such post cost ib_write_bw
  // a fifth of its rate under QEMU TCG.
  static bool PostWakes(uint64_t due, uint64_t offset, uint64_t planned) {
    return planned != 0 && due + 2 * offset < planned;
  }

 private:
  // Nothing is held: while hand-overs go on the thread looks every grace
  // rather than being woken by each post that finds its queue empty.
  bool KeepWatching(uint64_t handed_total);

  Ticks t_;
  uint64_t grace_ = 0;
  uint64_t handed_seen_ = 0;
  uint32_t idle_looks_ = 0;
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEFER_POLICY_H_
