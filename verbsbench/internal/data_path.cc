#include "verbsbench/internal/data_path.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "emulate/tsc.h"
#include "verbsbench/internal/wait.h"

namespace verbsbench::internal {
namespace {

// Tag carried in the last byte of every message: 1..254, never 0 (zeroed
// buffers), so a receiver polling memory sees exactly the message it waits
// for.
inline uint8_t Tag(uint64_t k) { return static_cast<uint8_t>(k % 254 + 1); }

// The wait policy of this process: the root uses its own; a peer its own
// unless it spins, then the root's. The root never sleeps on events: it
// spins while peers sleep.
Wait Policy(const Fabric& fabric, const Options& options) {
  if (!options.is_peer() || options.wait != Wait::kSpin) return options.wait;
  return fabric.config().wait;
}

}  // namespace

VerbsPath::VerbsPath(Fabric& fabric, const Timer& timer, const Options& options)
    : fabric_(fabric),
      timer_(timer),
      timeout_ticks_(static_cast<uint64_t>(options.timeout_s * timer.hz())),
      recv_qps_(fabric) {
  const Wait wait = Policy(fabric, options);
  yield_ = wait == Wait::kYield || (wait == Wait::kEvent && options.is_peer());
  event_ = wait == Wait::kEvent && options.is_peer();
  waits_ = {timeout_ticks_, options.timeout_s, yield_, event_};
  if (fabric.ud()) ud_ = std::make_unique<UdPath>(*fabric.ud(), waits_);
  const size_t slots = std::max<size_t>(
      {fabric.endpoints().size(), static_cast<size_t>(options.peers), 1});
  wrs_.resize(slots);
  sges_.resize(slots);
}

void VerbsPath::SpinTicks(uint64_t ticks) const {
  const uint64_t start = ReadTicks();
  while (ReadTicks() - start < ticks) verbsemu::emulate::CpuRelax();
}

bool VerbsPath::Inline(const Message& m) const {
  return m.inl && m.op != Op::kRead && m.size <= fabric_.max_inline();
}

void VerbsPath::Prepare(Endpoint& ep, const Message& m, uint8_t tag,
                        bool force_signal, uint32_t signal_every,
                        ibv_send_wr& wr, ibv_sge& sge) {
  ep.send_buf[m.size - 1] = tag;
  sge = {};
  sge.addr = reinterpret_cast<uintptr_t>(ep.send_buf);
  sge.length = static_cast<uint32_t>(m.size);
  sge.lkey = ep.mr->lkey;
  wr = {};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  switch (m.op) {
    case Op::kSend:
      wr.opcode = IBV_WR_SEND;
      break;
    case Op::kWrite:
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.wr.rdma.remote_addr = ep.remote_recv;
      wr.wr.rdma.rkey = ep.rkey;
      break;
    case Op::kRead:
      wr.opcode = IBV_WR_RDMA_READ;
      sge.addr = reinterpret_cast<uintptr_t>(ep.recv_buf);
      wr.wr.rdma.remote_addr = ep.remote_send;
      wr.wr.rdma.rkey = ep.rkey;
      break;
  }
  if (Inline(m)) wr.send_flags |= IBV_SEND_INLINE;
  const uint64_t covers = ep.since_signal + 1;
  if (force_signal || covers >= signal_every) {
    wr.send_flags |= IBV_SEND_SIGNALED;
    wr.wr_id = (covers << 16) | static_cast<uint64_t>(ep.index);
    ep.since_signal = 0;
    ep.signaled_pending++;
  } else {
    ep.since_signal++;
  }
  ep.outstanding++;
}

void VerbsPath::Post(Endpoint& ep, ibv_send_wr* wr) {
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(ep.qp, wr, &bad)) Fail("ibv_post_send", err);
}

uint32_t VerbsPath::PollSend() {
  ibv_wc wc[32];
  const int n = ibv_poll_cq(fabric_.send_cq(), 32, wc);
  if (n < 0) throw std::runtime_error("ibv_poll_cq (send) failed");
  uint32_t retired = 0;
  for (int i = 0; i < n; ++i) {
    Endpoint& ep = *fabric_.endpoints().at(wc[i].wr_id & 0xffff);
    if (wc[i].status != IBV_WC_SUCCESS) {
      throw std::runtime_error(std::string("send completion error on peer ") +
                               std::to_string(ep.index) + ": " +
                               ibv_wc_status_str(wc[i].status));
    }
    const uint32_t covers = static_cast<uint32_t>(wc[i].wr_id >> 16);
    ep.outstanding -= covers;
    ep.signaled_pending--;
    retired += covers;
  }
  return retired;
}

void VerbsPath::Reserve(Endpoint& ep, uint32_t n, uint32_t limit) {
  Spinner spin(timeout_ticks_, "waiting for send completions", yield_);
  while (ep.outstanding + n > limit) {
    if (ep.signaled_pending == 0) {
      throw std::logic_error("send queue full with no signaled WR");
    }
    if (PollSend() == 0) spin.Spin();
  }
}

void VerbsPath::Drain(int i) {
  Endpoint& ep = At(i);
  Spinner spin(timeout_ticks_, "draining send completions", yield_);
  while (ep.outstanding > 0) {
    if (ep.signaled_pending == 0) {
      throw std::logic_error("unsignaled WRs left at end of phase");
    }
    if (PollSend() == 0) spin.Spin();
  }
}

int VerbsPath::PollRecv(int max) {
  ibv_wc wc[32];
  const int want = max > 0 ? std::min(max, 32) : 32;
  const int n = ibv_poll_cq(fabric_.recv_cq(), want, wc);
  if (n < 0) throw std::runtime_error("ibv_poll_cq (recv) failed");
  for (int i = 0; i < n; ++i) {
    Endpoint& ep = *fabric_.endpoints().at(wc[i].wr_id);
    if (wc[i].status != IBV_WC_SUCCESS) {
      throw std::runtime_error(
          std::string("receive completion error on peer ") +
          std::to_string(ep.index) + ": " + ibv_wc_status_str(wc[i].status));
    }
    ep.posted_recvs--;
  }
  return n;
}

void VerbsPath::WaitRecv(int n) {
  AwaitCompletions(
      n, [this](int max) { return PollRecv(max); }, fabric_.recv_cq(),
      fabric_.recv_channel(), waits_, "waiting for a message");
}

void VerbsPath::WaitTag(Endpoint& ep, size_t size, uint8_t tag) {
  volatile uint8_t* p = ep.recv_buf + size - 1;
  Spinner spin(timeout_ticks_, "waiting for an RDMA write from a peer", yield_);
  while (*p != tag) {
    verbsemu::emulate::CpuRelax();
    spin.Spin();
  }
}

void VerbsPath::RefillIfLow(Endpoint& ep) {
  const uint32_t depth = fabric_.config().rq_depth;
  if (ep.posted_recvs <= depth / 2)
    fabric_.RefillRecvs(ep, depth - ep.posted_recvs);
}

void VerbsPath::Arm(int i, const Message& m) {
  Endpoint& ep = At(i);
  std::memset(ep.recv_buf, 0, m.size);
  PostRecvs(i, RecvsMissing(i));
}

void VerbsPath::Stage(int i, const Message& m, uint64_t k, bool force_signal) {
  Endpoint& ep = At(i);
  const size_t slot = static_cast<size_t>(i);
  Reserve(ep, 1, fabric_.config().sq_depth);
  Prepare(ep, m, Tag(k), force_signal, 1, wrs_.at(slot), sges_.at(slot));
}

void VerbsPath::StageList(const Message& m, uint64_t k, int n) {
  Endpoint& ep = At(0);
  const size_t count = static_cast<size_t>(n);
  if (count > wrs_.size()) throw std::logic_error("list longer than staging");
  Reserve(ep, static_cast<uint32_t>(n), fabric_.config().sq_depth);
  for (size_t j = 0; j < count; ++j) {
    Prepare(ep, m, Tag(k), false, 1, wrs_[j], sges_[j]);
    wrs_[j].next = j + 1 < count ? &wrs_[j + 1] : nullptr;
  }
}

void VerbsPath::PostStaged(int i) {
  Post(At(i), &wrs_.at(static_cast<size_t>(i)));
}

void VerbsPath::AwaitReplies(int n, const Message& m, uint64_t k) {
  if (m.op == Op::kSend) {
    WaitRecv(n);
    return;
  }
  for (int i = 0; i < n; ++i) WaitTag(At(i), m.size, Tag(k));
}

void VerbsPath::AwaitSignaled(int i) {
  Endpoint& ep = At(i);
  Spinner spin(timeout_ticks_, "waiting for an RDMA read", yield_);
  while (ep.signaled_pending > 0) {
    if (PollSend() == 0) spin.Spin();
  }
}

uint32_t VerbsPath::RecvsMissing(int i) {
  return fabric_.config().rq_depth - At(i).posted_recvs;
}

void VerbsPath::PostRecvs(int i, uint32_t n) { fabric_.RefillRecvs(At(i), n); }

void VerbsPath::SinkRecvs(uint64_t count) {
  Endpoint& ep = At(0);
  Spinner spin(timeout_ticks_, "sinking messages", yield_);
  for (uint64_t got = 0; got < count;) {
    int n = PollRecv(static_cast<int>(std::min<uint64_t>(32, count - got)));
    if (n == 0 && event_) {
      WaitRecv(1);
      n = 1;
    } else if (n == 0) {
      spin.Spin();
    }
    got += static_cast<uint64_t>(n);
    RefillIfLow(ep);
  }
}

uint32_t VerbsPath::StreamPost(Endpoint& ep, const Message& m, uint64_t posted,
                               uint32_t n, uint32_t signal_every,
                               uint64_t count, std::vector<ibv_send_wr>& wrs,
                               std::vector<ibv_sge>& sges) {
  for (uint32_t j = 0; j < n; ++j) {
    const bool last_wr = posted + j + 1 == count;
    Prepare(ep, m, Tag(posted + j), last_wr, signal_every, wrs[j], sges[j]);
    wrs[j].next = j + 1 < n ? &wrs[j + 1] : nullptr;
  }
  Post(ep, &wrs[0]);
  return n;
}

uint64_t VerbsPath::Stream(const Message& m, uint64_t count,
                           const StreamShape& shape, Recorder& rec) {
  Endpoint& ep = At(0);
  const uint32_t limit = std::min(shape.window, fabric_.config().sq_depth);
  const uint32_t list = std::max<uint32_t>(1, std::min(shape.post_list, limit));
  const uint32_t signal_every =
      std::max<uint32_t>(1, std::min(shape.cq_mod, limit - list + 1));
  std::vector<ibv_send_wr> wrs(list);
  std::vector<ibv_sge> sges(list);
  uint64_t posted = 0, recv_left = shape.expect_recv;
  Spinner spin(timeout_ticks_, "streaming", yield_);
  const Stamp start = ReadStamp();
  CompletionIntervals intervals(timer_, rec, start);
  while (posted < count || ep.outstanding > 0 || recv_left > 0) {
    const uint32_t n =
        static_cast<uint32_t>(std::min<uint64_t>(list, count - posted));
    bool progress = false;
    if (posted < count && ep.outstanding + n <= limit) {
      posted += StreamPost(ep, m, posted, n, signal_every, count, wrs, sges);
      progress = true;
    } else if (ep.outstanding > 0) {
      const uint32_t retired = PollSend();
      if (retired > 0) {
        intervals.Completed(ReadStamp(), retired);
        progress = true;
      }
    }
    if (recv_left > 0) {
      const int got = PollRecv(0);
      if (got > 0) {
        recv_left -= static_cast<uint64_t>(got);
        RefillIfLow(ep);
        progress = true;
      }
    }
    if (!progress) spin.Spin();
  }
  return ReadTicks() - start.ticks;
}

}  // namespace verbsbench::internal
