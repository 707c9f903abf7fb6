// The verbs data path of one process: stages, posts and completes the
// messages the measurement patterns and the peer ask for, on the fabric's
// endpoints. The patterns are templates over a path with this interface,
// so tests run them on a fake path without a device.
#ifndef VERBSBENCH_INTERNAL_DATA_PATH_H_
#define VERBSBENCH_INTERNAL_DATA_PATH_H_

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "verbsbench/internal/fabric.h"
#include "verbsbench/internal/measurements.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/internal/recv_qps.h"
#include "verbsbench/internal/ud_path.h"
#include "verbsbench/internal/wait.h"
#include "verbsbench/options.h"
#include "verbsbench/stats.h"
#include "verbsbench/timer.h"

namespace verbsbench::internal {

class VerbsPath {
 public:
  // A peer's waits follow the root's policy unless it set its own.
  VerbsPath(Fabric& fabric, const Timer& timer, const Options& options);

  Stamp Now() const { return ReadStamp(); }
  // Busy-waits `ticks` (LogGP's d between posts, o_r's settling).
  void SpinTicks(uint64_t ticks) const;
  // Whether `m` goes inline on this device.
  bool Inline(const Message& m) const;

  // Before a round trip on endpoint i: clear the receive buffer, fill the
  // receive queue.
  void Arm(int i, const Message& m);
  // Prepares message k for endpoint i (waits for send-queue room).
  void Stage(int i, const Message& m, uint64_t k, bool force_signal);
  // Prepares n copies of message k as one list on endpoint 0.
  void StageList(const Message& m, uint64_t k, int n);
  // Posts what was staged for endpoint i (a list: i = 0).
  void PostStaged(int i);
  // Waits for the replies to message k from endpoints 0..n-1.
  void AwaitReplies(int n, const Message& m, uint64_t k);
  // Waits until every signaled WR of endpoint i completed (RDMA read).
  void AwaitSignaled(int i);
  // Receives endpoint i consumed since its queue was full, and posting
  // them again (recv_repost.h says when).
  uint32_t RecvsMissing(int i);
  void PostRecvs(int i, uint32_t n);
  // Waits for every send WR of endpoint i to complete.
  void Drain(int i);
  // Consumes `count` receives on endpoint 0.
  void SinkRecvs(uint64_t count);
  // Streams `count` messages on endpoint 0; returns elapsed ticks and
  // records one sample per message: its share of the interval that ended
  // with the poll retiring it (CompletionIntervals).
  uint64_t Stream(const Message& m, uint64_t count, const StreamShape& shape,
                  Recorder& rec);

  // o_r: receives posted on local QPs held in INIT.
  void StageRecvs(int p, bool list) { recv_qps_.Stage(p, list); }
  int PostStagedRecvs(int p, bool list) { return recv_qps_.Post(p, list); }
  void FinishRecvs(int p, bool list, int err) {
    recv_qps_.Finish(p, list, err);
  }

  // The list-posted round on the fabric's UD QP (ud_path.h); destination i
  // is peer i at the root, the root at a peer.
  bool InlineUd(const Message& m) const { return Ud().Inline(m); }
  void ArmUd(const Message& m) { Ud().Arm(m); }
  void StageUdList(const Message& m, int n, bool signal) {
    Ud().StageList(m, n, signal);
  }
  void PostUdStaged() { Ud().PostStaged(); }
  void AwaitUdReplies(int n) { Ud().AwaitReplies(n); }
  uint32_t UdRecvsMissing() const { return Ud().RecvsMissing(); }
  void PostUdRecvs(uint32_t n) { Ud().PostRecvs(n); }
  void DrainUd() { Ud().Drain(); }

 private:
  UdPath& Ud() const {
    if (!ud_) throw std::logic_error("no UD QP: the fabric was set up without");
    return *ud_;
  }
  Endpoint& At(int i) {
    return *fabric_.endpoints().at(static_cast<size_t>(i));
  }
  void Prepare(Endpoint& ep, const Message& m, uint8_t tag, bool force_signal,
               uint32_t signal_every, ibv_send_wr& wr, ibv_sge& sge);
  void Post(Endpoint& ep, ibv_send_wr* wr);
  uint32_t PollSend();
  void Reserve(Endpoint& ep, uint32_t n, uint32_t limit);
  int PollRecv(int max);
  void WaitRecv(int n);
  void WaitTag(Endpoint& ep, size_t size, uint8_t tag);
  void RefillIfLow(Endpoint& ep);
  // Posts up to one list of the stream; returns the WRs posted.
  uint32_t StreamPost(Endpoint& ep, const Message& m, uint64_t posted,
                      uint32_t n, uint32_t signal_every, uint64_t count,
                      std::vector<ibv_send_wr>& wrs,
                      std::vector<ibv_sge>& sges);

  Fabric& fabric_;
  const Timer& timer_;
  uint64_t timeout_ticks_;
  bool yield_;
  bool event_;
  WaitSettings waits_;
  std::vector<ibv_send_wr> wrs_;  // staged, one per endpoint or a list
  std::vector<ibv_sge> sges_;
  RecvQps recv_qps_;
  std::unique_ptr<UdPath> ud_;  // with the fabric's UD QP only
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_DATA_PATH_H_
