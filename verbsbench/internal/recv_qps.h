// The QPs that measure o_r (the time of ibv_post_recv): local RC QPs held in
// INIT (receives may be posted before connecting), each reset to RESET and
// back to INIT when its receive queue is full.
#ifndef VERBSBENCH_INTERNAL_RECV_QPS_H_
#define VERBSBENCH_INTERNAL_RECV_QPS_H_

#include <cstdint>
#include <vector>

#include "verbsbench/internal/fabric.h"

namespace verbsbench::internal {

class RecvQps {
 public:
  explicit RecvQps(Fabric& fabric) : fabric_(fabric) {}

  // Makes p WRs ready: one per QP, or one list of p on QP 0.
  void Stage(int p, bool list);
  // Posts them; returns the first error (0 = none). The timed part.
  int Post(int p, bool list);
  // Throws on err; counts what was posted.
  void Finish(int p, bool list, int err);

 private:
  void Ensure(int p);
  void ToInit(ibv_qp* qp);
  void Reset(int q);

  Fabric& fabric_;
  // Declared before the QPs: destroyed after them.
  CqPtr cq_;
  std::vector<QpPtr> qps_;
  std::vector<uint32_t> posted_;
  uint32_t depth_ = 0;
  std::vector<ibv_recv_wr> wrs_;
  std::vector<ibv_sge> sges_;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_RECV_QPS_H_
