// A QP on the fake device, made and connected the way an application would
// (through the shim's entry points, or straight to the fake device for the
// native baseline). Shared by shim_test and device_boundary_bench.
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_QP_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_QP_H_

#include <infiniband/verbs.h>

#include "shim/internal/fake_device.h"

namespace verbsemu::shim::internal {

constexpr uint64_t kOneWayOps = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
constexpr uint64_t kAllRcOps = kOneWayOps | IBV_QP_EX_WITH_RDMA_READ |
                               IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
                               IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;

struct FakeQpOptions {
  bool through_shim = true;  // false: the fake device alone (baseline)
  bool wr_api = false;       // ibv_create_qp_ex with ibv_wr_* send ops
  // Those send ops: by default READ and the atomics too (the shim then
  // records batches under emulation); kOneWayOps: SEND and RDMA WRITE.
  uint64_t send_ops = kAllRcOps;
  bool connect = true;  // bring the QP to RTS
  int cq_depth = 64;
};

struct FakeQpEnv {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
  ibv_qp_ex* qpx = nullptr;  // with wr_api
};

FakeQpEnv MakeFakeQp(FakeDevice& d, const FakeQpOptions& options);
// INIT -> RTR (RC address vector on port 1) -> RTS; false on a failed step.
// `with_av` false: RTR without the address vector (a DCI, iWARP).
bool ConnectFakeQp(ibv_qp* qp, bool through_shim = true, bool with_av = true);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_QP_H_
