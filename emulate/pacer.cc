#include "emulate/pacer.h"

#include <algorithm>

#include "emulate/catch_up.h"

namespace verbsemu::emulate {
namespace {

// Fixed-point values stay below 2^62, so sums of a few never wrap: a
// schedule further out than that is far beyond anything a link books.
constexpr uint64_t kFxMax = uint64_t{1} << 62;
// Ticks since the epoch are re-based before they reach 2^60 in fixed point.
constexpr double kRelFxMax = static_cast<double>(uint64_t{1} << 60);

uint64_t Fx(double v) {
  return v >= static_cast<double>(kFxMax) ? kFxMax : static_cast<uint64_t>(v);
}

}  // namespace

Pacer::Pacer(double target_bytes_per_tick, double real_bytes_per_tick,
             uint64_t epoch, uint64_t burst_ticks)
    : target_(target_bytes_per_tick),
      real_(real_bytes_per_tick > target_bytes_per_tick ? real_bytes_per_tick
                                                        : 0),
      burst_fx_(Fx(static_cast<double>(burst_ticks) * kOwnFrac)) {
  own_.epoch.store(epoch, std::memory_order_relaxed);
}

Pacer::Pacer(double target_bytes_per_tick, double real_bytes_per_tick,
             uint64_t burst_ticks, PacerState& shared, uint64_t now,
             uint64_t max_ahead_ticks, std::atomic<uint64_t>* resets)
    : Pacer(target_bytes_per_tick, real_bytes_per_tick, uint64_t{0}) {
  if (now == 0) now = 1;
  // The first pacer on the link sets its epoch; the others take it.
  uint64_t unset = 0;
  shared.epoch.compare_exchange_strong(unset, now, std::memory_order_relaxed);
  resets_ = resets;
  max_ahead_ticks_ = max_ahead_ticks;
  frac_ = kSharedFrac;
  burst_fx_ = Fx(static_cast<double>(burst_ticks) * kSharedFrac);
  max_ahead_fx_ = Fx(static_cast<double>(max_ahead_ticks) * kSharedFrac);
  state_ = &shared;
  Epoch(now);
}

uint64_t Pacer::Epoch(uint64_t now) {
  uint64_t epoch = state_->epoch.load(std::memory_order_relaxed);
  // The TSC went backwards since the link's first use (a reboot under a
  // kept VERBSEMU_SHM_DIR file, a migrated VM), or the link is so old that
  // its times leave the fixed point: re-based at now, its schedule (in the
  // old time base) dropped. Another pacer may have done it first.
  const bool backwards =
      max_ahead_ticks_ != 0 && epoch > now && epoch - now > max_ahead_ticks_;
  const bool too_old =
      now > epoch && static_cast<double>(now - epoch) * frac_ >= kRelFxMax;
  if (!backwards && !too_old) return epoch;
  if (state_->epoch.compare_exchange_strong(epoch, now,
                                            std::memory_order_relaxed)) {
    state_->free_at.store(0, std::memory_order_relaxed);
    NoteReset();
    return now;
  }
  return epoch;  // re-based by another pacer
}

uint64_t Pacer::FreeAt() const {
  const uint64_t epoch = state_->epoch.load(std::memory_order_relaxed);
  const uint64_t free_fx = state_->free_at.load(std::memory_order_relaxed);
  return epoch + static_cast<uint64_t>(static_cast<double>(free_fx) / frac_);
}

uint64_t Pacer::Reserve(uint64_t now, uint64_t bytes, Sender sender) {
  if (!enabled()) return now;
  const uint64_t epoch = Epoch(now);
  const uint64_t rel_now = (now > epoch ? now - epoch : 0);
  const uint64_t now_fx = Fx(static_cast<double>(rel_now) * frac_);
  const uint64_t cost_fx =
      Fx(static_cast<double>(bytes) / target_ * frac_ + 0.5);
  const uint64_t real_fx =
      real_ > 0 ? Fx(static_cast<double>(bytes) / real_ * frac_) : 0;
  std::atomic<uint64_t>& link = state_->free_at;
  uint64_t free_at = link.load(std::memory_order_relaxed);
  uint64_t finish;
  for (;;) {
    if (max_ahead_fx_ != 0 && free_at > now_fx &&
        free_at - now_fx > max_ahead_fx_) {
      // Booked beyond any real backlog: no reservation made that.
      if (!link.compare_exchange_weak(free_at, now_fx,
                                      std::memory_order_relaxed)) {
        continue;
      }
      free_at = now_fx;
      NoteReset();
    }
    // Catch-up window of a blocking sender: the configured burst, and at
    // least two messages of this size (a sender that lost the CPU for one
    // message, e.g. to a soft device's packet processing, gets that link
    // time back). A queued sender lost nothing: no window.
    const uint64_t slack =
        sender == Sender::kQueued ? 0 : std::max(burst_fx_, 2 * cost_fx);
    finish = std::min(kFxMax, CatchUpStart(free_at, now_fx, slack) + cost_fx);
    if (link.compare_exchange_weak(free_at, finish,
                                   std::memory_order_relaxed)) {
      break;
    }
  }
  const uint64_t release_fx = finish > real_fx ? finish - real_fx : 0;
  const uint64_t release =
      epoch + static_cast<uint64_t>(static_cast<double>(release_fx) / frac_);
  return std::max(release, now);
}

}  // namespace verbsemu::emulate
