// The UD part of the data path: LoP's list-posted 1:n round. The root
// stages p UD sends, one to each peer's address handle, chained as one
// list and posted with one ibv_post_send; each peer answers with one UD
// send. Receives are counted from the UD recv CQ (no tag: a UD message
// lands in a receive of its own).
#ifndef VERBSBENCH_INTERNAL_UD_PATH_H_
#define VERBSBENCH_INTERNAL_UD_PATH_H_

#include <cstdint>
#include <vector>

#include "verbsbench/internal/protocol.h"
#include "verbsbench/internal/ud.h"
#include "verbsbench/internal/wait.h"

namespace verbsbench::internal {

class UdPath {
 public:
  UdPath(UdQp& qp, const WaitSettings& waits);

  // Whether `m` goes inline on the UD QP.
  bool Inline(const Message& m) const;
  // Before a phase: checks that `m` fits one UD message; fills the
  // receive queue.
  void Arm(const Message& m);
  // Prepares one send to each of destinations 0..n-1 as one list (waits for
  // send-queue room). `signal`: the last WR is signaled (a phase's last
  // list, so Drain sees every WR complete); else one WR in sq_depth/2 is.
  void StageList(const Message& m, int n, bool signal);
  // Posts the staged list: one ibv_post_send.
  void PostStaged();
  // Waits for n receives.
  void AwaitReplies(int n);
  uint32_t RecvsMissing() const { return qp_.RecvsMissing(); }
  void PostRecvs(uint32_t n) { qp_.PostRecvs(n); }
  // Waits for every send WR to complete.
  void Drain();

 private:
  uint32_t PollSend();
  int PollRecv(int max);
  void Reserve(uint32_t n);

  UdQp& qp_;
  WaitSettings waits_;
  uint32_t signal_every_;
  std::vector<ibv_send_wr> wrs_;
  std::vector<ibv_sge> sges_;
  // Send-queue accounting: WRs posted but not known complete.
  uint32_t outstanding_ = 0;
  uint32_t since_signal_ = 0;
  uint32_t signaled_pending_ = 0;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_UD_PATH_H_
