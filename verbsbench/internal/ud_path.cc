#include "verbsbench/internal/ud_path.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace verbsbench::internal {

UdPath::UdPath(UdQp& qp, const WaitSettings& waits)
    : qp_(qp),
      waits_(waits),
      signal_every_(std::max<uint32_t>(1, qp.sq_depth() / 2)) {}

bool UdPath::Inline(const Message& m) const {
  return m.inl && m.size <= qp_.max_inline();
}

void UdPath::Arm(const Message& m) {
  // The fabric made the UD buffers for the run's size (at most the MTU).
  if (m.size > qp_.max_size()) {
    throw std::logic_error("a UD message of " + std::to_string(m.size) +
                           " bytes for buffers of " +
                           std::to_string(qp_.max_size()));
  }
  PostRecvs(RecvsMissing());
}

void UdPath::StageList(const Message& m, int n, bool signal) {
  const size_t count = static_cast<size_t>(n);
  if (n < 1 || n > qp_.destinations() ||
      static_cast<uint32_t>(n) > signal_every_) {
    throw std::logic_error("a UD list of " + std::to_string(n) + " for " +
                           std::to_string(qp_.destinations()) +
                           " destinations");
  }
  Reserve(static_cast<uint32_t>(n));
  if (wrs_.size() < count) {
    wrs_.resize(count);
    sges_.resize(count);
  }
  const bool inl = Inline(m);
  for (size_t j = 0; j < count; ++j) {
    const UdDestination& to = qp_.destination(static_cast<int>(j));
    sges_[j] = {reinterpret_cast<uintptr_t>(qp_.send_buf()),
                static_cast<uint32_t>(m.size), qp_.lkey()};
    ibv_send_wr& wr = wrs_[j];
    wr = {};
    wr.sg_list = &sges_[j];
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.wr.ud.ah = to.ah.get();
    wr.wr.ud.remote_qpn = to.qpn;
    wr.wr.ud.remote_qkey = to.qkey;
    if (inl) wr.send_flags |= IBV_SEND_INLINE;
    const uint32_t covers = since_signal_ + 1;
    if ((signal && j + 1 == count) || covers >= signal_every_) {
      wr.send_flags |= IBV_SEND_SIGNALED;
      wr.wr_id = covers;
      since_signal_ = 0;
      signaled_pending_++;
    } else {
      since_signal_++;
    }
    outstanding_++;
    wr.next = j + 1 < count ? &wrs_[j + 1] : nullptr;
  }
}

void UdPath::PostStaged() {
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(qp_.qp(), wrs_.data(), &bad)) {
    Fail("ibv_post_send (UD list)", err);
  }
}

uint32_t UdPath::PollSend() {
  ibv_wc wc[16];
  const int n = ibv_poll_cq(qp_.send_cq(), 16, wc);
  if (n < 0) throw std::runtime_error("ibv_poll_cq (UD send) failed");
  uint32_t retired = 0;
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != IBV_WC_SUCCESS) {
      throw std::runtime_error(std::string("UD send completion error: ") +
                               ibv_wc_status_str(wc[i].status));
    }
    retired += static_cast<uint32_t>(wc[i].wr_id);
    signaled_pending_--;
  }
  outstanding_ -= retired;
  return retired;
}

void UdPath::Reserve(uint32_t n) {
  Spinner spin(waits_.timeout_ticks, "waiting for UD send completions",
               waits_.yield);
  while (outstanding_ + n > qp_.sq_depth()) {
    if (signaled_pending_ == 0) {
      throw std::logic_error("UD send queue full with no signaled WR");
    }
    if (PollSend() == 0) spin.Spin();
  }
}

void UdPath::Drain() {
  Spinner spin(waits_.timeout_ticks, "draining UD send completions",
               waits_.yield);
  while (outstanding_ > 0) {
    if (signaled_pending_ == 0) {
      throw std::logic_error("unsignaled UD WRs left at end of phase");
    }
    if (PollSend() == 0) spin.Spin();
  }
}

int UdPath::PollRecv(int max) {
  ibv_wc wc[32];
  const int n = ibv_poll_cq(qp_.recv_cq(), std::min(max, 32), wc);
  if (n < 0) throw std::runtime_error("ibv_poll_cq (UD recv) failed");
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != IBV_WC_SUCCESS) {
      throw std::runtime_error(std::string("UD receive completion error: ") +
                               ibv_wc_status_str(wc[i].status));
    }
  }
  qp_.Consumed(static_cast<uint32_t>(n));
  return n;
}

void UdPath::AwaitReplies(int n) {
  AwaitCompletions(
      n, [this](int max) { return PollRecv(max); }, qp_.recv_cq(),
      qp_.recv_channel(), waits_, "waiting for a UD message");
}

}  // namespace verbsbench::internal
