#include "shim/internal/defer_order.h"

#include <algorithm>

#include "shim/internal/defer_queue.h"
#include "shim/internal/defer_synth.h"

namespace verbsemu::shim::internal {

uint64_t CompletionOrder::Posted(const uint32_t* signaled_at, size_t signaled,
                                 size_t wrs) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t first = front_seq_ + wrs_.size();
  const size_t base = wrs_.size();
  wrs_.resize(base + wrs);
  for (size_t i = 0; i < signaled; ++i) {
    const size_t at = signaled_at[i];
    if (at >= 1 && at <= wrs) wrs_[base + at - 1].signaled = true;
  }
  return first;
}

CompletionOrder::Wr* CompletionOrder::Find(uint64_t seq) {
  if (seq < front_seq_ || seq - front_seq_ >= wrs_.size()) return nullptr;
  return &wrs_[seq - front_seq_];
}

void CompletionOrder::Offer(uint64_t seq, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  offer_seq_ = seq;
  offered_ = n;
  for (uint64_t s = seq; s < seq + n; ++s) {
    const uint64_t place = next_place_++;
    Wr* w = Find(s);
    if (w == nullptr) continue;  // forgotten by Clear
    w->place = place;
    if (w->signaled) signaled_.push_back(s);
  }
}

void CompletionOrder::Took(size_t went) {
  std::lock_guard<std::mutex> lock(mu_);
  // The ones not taken were offered last: they are at the back.
  for (size_t i = offered_; i > went; --i) {
    --next_place_;
    Wr* w = Find(offer_seq_ + i - 1);
    if (w == nullptr || w->place == 0) continue;
    w->place = 0;
    if (w->signaled && !signaled_.empty() &&
        signaled_.back() == offer_seq_ + i - 1) {
      signaled_.pop_back();
    }
  }
  offered_ = 0;
}

void CompletionOrder::Completed(uint64_t seq, const ibv_wc* wc) {
  std::lock_guard<std::mutex> lock(mu_);
  Wr* w = Find(seq);
  if (w == nullptr) return;
  w->settled = true;
  if (wc != nullptr) {
    w->wc = *wc;
    w->polled = true;
  }
  Release();
}

// The WRs at the front whose earlier WRs all completed leave; the polled
// completions among them go out.
void CompletionOrder::Release() {
  while (!wrs_.empty()) {
    const Wr& w = wrs_.front();
    const bool done =
        w.settled || (w.place != 0 && w.place <= completed_place_);
    if (!done) return;
    if (w.polled) out_->Add(cq_, w.wc);
    wrs_.pop_front();
    ++front_seq_;
  }
}

void CompletionOrder::ReleaseAll() {
  for (const Wr& w : wrs_) {
    if (w.polled) out_->Add(cq_, w.wc);
  }
  front_seq_ += wrs_.size();
  wrs_.clear();
  signaled_.clear();
  completed_place_ = next_place_ - 1;
}

void CompletionOrder::Polled(const ibv_wc& wc) {
  std::lock_guard<std::mutex> lock(mu_);
  if (wc.status != IBV_WC_SUCCESS) {
    ReleaseAll();
    out_->Add(cq_, wc);
    return;
  }
  Wr* w = signaled_.empty() ? nullptr : Find(signaled_.front());
  if (!signaled_.empty()) signaled_.pop_front();
  if (w == nullptr) {  // not one the shim handed over: as it came
    out_->Add(cq_, wc);
    return;
  }
  w->wc = wc;
  w->polled = true;
  completed_place_ = std::max(completed_place_, w->place);
  Release();
}

void CompletionOrder::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  front_seq_ += wrs_.size();
  wrs_.clear();
  signaled_.clear();
  completed_place_ = next_place_ - 1;
}

size_t CompletionOrder::Tracked() {
  std::lock_guard<std::mutex> lock(mu_);
  return wrs_.size();
}

uint64_t LaneDue(DeferQueue& d, const void* lane, uint64_t due) {
  due = std::max(due, d.lane_floor);
  if (lane == kBatchLane) {
    for (const auto& [key, last] : d.lane_due) due = std::max(due, last);
    d.lane_floor = due;
    return due;
  }
  auto it = std::find_if(d.lane_due.begin(), d.lane_due.end(),
                         [lane](const auto& l) { return l.first == lane; });
  if (it == d.lane_due.end()) {
    d.lane_due.emplace_back(lane, due);
    return due;
  }
  it->second = std::max(it->second, due);
  return it->second;
}

uint64_t NextDue(const DeferQueue& d) {
  uint64_t next = kNeverDue;
  for (const auto& p : d.fifo) {
    next = std::min(next, p->due);
    if (d.order == nullptr || !p->all_signaled) break;
  }
  return next;
}

}  // namespace verbsemu::shim::internal
