// `pace` bandwidth mode: a virtual link of the target rate. Each work request
// reserves the virtual link for its bytes; it is released to the real device
// when its bytes would have finished crossing the virtual link, minus the time
// the real link itself needs for them. Lock-free; one pacer is shared by all
// QPs of a (context, port).
#ifndef VERBSEMU_EMULATE_PACER_H_
#define VERBSEMU_EMULATE_PACER_H_

#include <atomic>
#include <cstdint>

namespace verbsemu::emulate {

// The schedule of one virtual link. Zero-filled is a link never used. It may
// live in memory that several processes map (the shim keeps one per NIC
// port of a node, so every rank pacing on the port shares it): a single
// lock-free word, so a process that dies mid-reservation holds nothing and
// the others keep their rate.
struct PacerState {
  std::atomic<uint64_t> free_at{0};  // when the link is free, fixed point
  std::atomic<uint64_t> epoch{0};    // TSC of its first use, set once
};
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "a shared link needs an address-free atomic");

class Pacer {
 public:
  // Rates in bytes per tick; real_bytes_per_tick == 0 means "infinitely fast"
  // (e.g. loopback). `epoch` is any tick value not after the first Reserve.
  // `burst_ticks`: how far behind the virtual link's schedule a blocking
  // sender may fall and still catch up (never less than two messages of the
  // size being paced). Without it, every late post (the caller's own
  // overhead, a preemption) is lost link time and the rate comes out low.
  // A sender further behind found the link idle: it gets nothing back, and
  // an idle link never lends a burst (a real one cannot).
  Pacer(double target_bytes_per_tick, double real_bytes_per_tick,
        uint64_t epoch, uint64_t burst_ticks = 0);
  // A link whose schedule is `shared`, which other pacers, in this process
  // or others, reserve on too. Its times are TSC ticks (every core of a node
  // reads one TSC) since the link's first use (`now` of the first pacer made
  // on it), in 1/64 tick. A link 2^54 ticks old (87 days at 2.4 GHz) is
  // re-based at the next reservation, its schedule dropped (a pacer's own
  // link: at 2^48 ticks, 1.4 days).
  //
  // Values read from shared memory are bounded (another process's bug, a
  // stale file, a hostile user's writes must not stall this one): with
  // `max_ahead_ticks` (0: unbounded), a schedule booked further ahead of
  // now than that is reset to now, and an epoch that far after now (the
  // TSC went backwards: a reboot under a kept VERBSEMU_SHM_DIR file, a
  // migrated VM) re-bases the link at now, here and at any Reserve; each
  // counts in `*resets`.
  Pacer(double target_bytes_per_tick, double real_bytes_per_tick,
        uint64_t burst_ticks, PacerState& shared, uint64_t now,
        uint64_t max_ahead_ticks = 0, std::atomic<uint64_t>* resets = nullptr);

  bool enabled() const { return target_ > 0; }
  // How long before its release a message of `bytes` started on this link
  // (its time at the target rate less its time at the real one): a release
  // less this is when the message's first byte left.
  uint64_t LeadTicks(uint64_t bytes) const {
    if (!enabled()) return 0;
    const double real = real_ > 0 ? static_cast<double>(bytes) / real_ : 0;
    const double lead = static_cast<double>(bytes) / target_ - real;
    return lead > 0 ? static_cast<uint64_t>(lead) : 0;
  }

  // How the sender waits for its release. kBlocking: it waits in its post
  // (spin), so its own work after a release delays its next post and the
  // catch-up window gives that link time back. kQueued: the post returned at
  // once and is held until its release (defer), as a NIC's send queue holds
  // it: its posts book the link as they come, with no window.
  enum class Sender { kBlocking, kQueued };

  // When the link's schedule is next free, in ticks (a link never used:
  // its epoch). Read without a reservation, so another may book it first.
  uint64_t FreeAt() const;

  // Reserves the virtual link for `bytes` at `now`; returns the tick at which
  // the data may be handed to the device (>= now).
  uint64_t Reserve(uint64_t now, uint64_t bytes,
                   Sender sender = Sender::kBlocking);

 private:
  // The link's epoch, re-based at `now` when the TSC went backwards by more
  // than max_ahead_ticks_ or the link's age leaves the fixed point.
  uint64_t Epoch(uint64_t now);
  void NoteReset() {
    if (resets_ != nullptr) resets_->fetch_add(1, std::memory_order_relaxed);
  }
  // Fixed point of a pacer's own link, 1/4096 tick: exact enough for
  // 64-byte messages.
  static constexpr double kOwnFrac = 4096.0;
  // Of a shared link, whose epoch may be years old: 64 B at 100 Gbit/s
  // (12 ticks) is still 786 units.
  static constexpr double kSharedFrac = 64.0;
  double target_ = 0;
  double real_ = 0;
  double frac_ = kOwnFrac;
  uint64_t burst_fx_ = 0;
  uint64_t max_ahead_ticks_ = 0;  // 0: unbounded
  uint64_t max_ahead_fx_ = 0;
  std::atomic<uint64_t>* resets_ = nullptr;
  PacerState own_;
  PacerState* state_ = &own_;  // free_at: (tick - epoch) * frac_; own_'s
                               // epoch is this pacer's
};

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_PACER_H_
