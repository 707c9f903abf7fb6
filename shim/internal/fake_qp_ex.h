// The fake device's ibv_qp_ex: a batch is built under the QP's send-queue
// lock from wr_start to wr_complete or wr_abort, as mlx5 and rxe do, and
// the fake notes how long that lock was held and any builder call made
// outside a batch (a provider would write into a WQE it never started).
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_QP_EX_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_QP_EX_H_

#include <infiniband/verbs.h>

#include <cstdint>

#include "shim/internal/fake_device.h"

namespace verbsemu::shim::internal {

// Fills the fake provider's slots (some stay NULL, as for a provider
// without them); kMlx5 installs the setters of the QP's type family.
void InstallFakeQpEx(ibv_qp_ex& x, Personality personality, ibv_qp_type type);
// What mlx5 does to wr_complete on a move to `state` (Personality::kMlx5).
void ApplyFakePersonality(FakeQp* q, ibv_qp_state state);

// Shared with the fake's post_send. A send completion names its QP and
// the QP's sq_head after the WR (polling it frees the send queue to there).
void FakeComplete(ibv_cq* cq, uint64_t wr_id, ibv_wc_opcode op,
                  ibv_wc_status status = IBV_WC_SUCCESS, FakeQp* qp = nullptr,
                  uint64_t sq_index = 0);
// Personality::kMlx5's ibv_post_send checks of WR `w` (the WRs before it
// in its chain already taken): 0, or ENOMEM for what mlx5 refuses.
int FakeMlx5Refusal(const FakeQp& q, const ibv_send_wr& w);
// A thread entering and leaving a context's post path (kMlx5 without
// locks counts overlapping entries; every entry lasts post_dwell_ns).
void EnterPostPath(FakeContext* c);
void LeavePostPath(FakeContext* c);
// FNV-1a over `n` bytes at `p`, continuing from `h` (a WR's digest).
uint64_t Fnv1a(uint64_t h, const void* p, size_t n);
// Counts one post reaching the device at `tsc`; false when the device is a
// null device that drops everything.
bool StampPost(FakeDevice* d, uint64_t tsc);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_QP_EX_H_
