#include "shim/internal/defer_sq.h"

#include "shim/internal/wr_recording.h"

namespace verbsemu::shim::internal {
namespace {

// LOCAL_INV and BIND_MW carry no data: their sg_list and num_sge may be
// left unset, so they are not read.
bool HasData(const ibv_send_wr& wr) {
  return wr.opcode != IBV_WR_LOCAL_INV && wr.opcode != IBV_WR_BIND_MW;
}

// Why the provider would refuse `wr` with `held` WRs ahead of it: 0, or
// the errno. Checked before anything of the WR is copied. A cap not known
// is bounded (kUnknownCaps), with EINVAL.
int Refusal(const SqLimits& l, size_t held, const ibv_send_wr& wr) {
  const uint64_t depth =
      l.max_send_wr != 0 ? l.max_send_wr : kUnknownCaps.max_send_wr;
  if (held >= depth) return ENOMEM;
  if (l.rules.needs_rts && !l.reached_rts) return ENOMEM;
  if (!HasData(wr)) return 0;
  if (wr.num_sge < 0) return EINVAL;
  const auto sges = static_cast<uint32_t>(wr.num_sge);
  if (l.max_send_sge != 0 && sges > l.max_send_sge) return l.rules.sge_errno;
  if (l.max_send_sge == 0 && sges > kUnknownCaps.max_send_sge) return EINVAL;
  if ((wr.send_flags & IBV_SEND_INLINE) == 0) return 0;
  uint64_t inl = 0;
  for (uint32_t i = 0; i < sges; ++i) inl += wr.sg_list[i].length;
  if (l.max_inline_data == 0) {
    return inl > kUnknownCaps.max_inline_data ? EINVAL : 0;
  }
  return inl > l.max_inline_data ? l.rules.inline_errno : 0;
}

}  // namespace

PostRules PostRules::ForDevice(std::string_view name) {
  PostRules r;
  if (name.starts_with("mlx5")) {
    r.sge_errno = ENOMEM;
    r.inline_errno = ENOMEM;
    r.needs_rts = true;
  } else if (name.starts_with("mlx4")) {
    r.sge_errno = ENOMEM;
    r.inline_errno = ENOMEM;
  }
  return r;
}

const ibv_send_wr* FirstRefused(const SqLimits& l, size_t held,
                                const ibv_send_wr* wr, int* rc) {
  for (; wr != nullptr; wr = wr->next, ++held) {
    if (const int why = Refusal(l, held, *wr)) {
      *rc = why;
      return wr;
    }
  }
  return nullptr;
}

int BatchRefusal(const SqLimits& l, size_t held, const WrRecording& r,
                 size_t wrs) {
  // Before RTS, mlx5's wr_complete is its error variant.
  if (l.rules.needs_rts && !l.reached_rts) return EINVAL;
  const uint64_t depth =
      l.max_send_wr != 0 ? l.max_send_wr : kUnknownCaps.max_send_wr;
  if (held + wrs > depth) return ENOMEM;
  if (l.max_send_sge != 0 && r.max_sges > l.max_send_sge) {
    return l.rules.sge_errno;
  }
  if (l.max_send_sge == 0 && r.max_sges > kUnknownCaps.max_send_sge) {
    return EINVAL;
  }
  if (l.max_inline_data != 0 && r.max_inline > l.max_inline_data) {
    return l.rules.inline_errno;
  }
  if (l.max_inline_data == 0 && r.max_inline > kUnknownCaps.max_inline_data) {
    return EINVAL;
  }
  return 0;
}

void SqWindow::Offer(const uint32_t* signaled_at, size_t signaled) {
  std::lock_guard<std::mutex> lock(mu_);
  offered_ = 0;
  if (blind_) return;
  for (size_t i = 0; i < signaled; ++i) {
    marks_.push_back(handed_ + signaled_at[i]);
  }
  offered_ = signaled;
  // More signaled WRs outstanding than a send queue holds: completions
  // went unseen (a CQ polled through ibv_cq_ex), so the count is lost.
  if (marks_.size() > 2 * size_t{depth_} + 64) {
    blind_ = true;
    marks_.clear();
    offered_ = 0;
  }
}

void SqWindow::Took(size_t went) {
  std::lock_guard<std::mutex> lock(mu_);
  // The marks of WRs the provider did not take are the last ones offered
  // (no completion can have taken them).
  for (; offered_ > 0 && !marks_.empty() && marks_.back() > handed_ + went;
       --offered_) {
    marks_.pop_back();
  }
  offered_ = 0;
  handed_ += went;
}

void SqWindow::Completed() {
  std::lock_guard<std::mutex> lock(mu_);
  if (marks_.empty()) return;
  freed_ = marks_.front();
  marks_.pop_front();
}

void SqWindow::Emptied() {
  std::lock_guard<std::mutex> lock(mu_);
  freed_ = handed_;
  marks_.clear();
  offered_ = 0;
  blind_ = false;
}

uint64_t SqWindow::Outstanding() {
  std::lock_guard<std::mutex> lock(mu_);
  return blind_ ? kUnknown : handed_ - freed_;
}

}  // namespace verbsemu::shim::internal
