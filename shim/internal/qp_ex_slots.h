// The ibv_qp_ex slots the shim wraps, listed once. Saving the provider's
// functions, the wrappers, wrapping and unwrapping are all generated from
// these two lists, so they cannot drift apart.
#ifndef VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_
#define VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_

#include <infiniband/verbs.h>

#include "shim/internal/post_shape.h"

// Work-request opcodes: OP(slot, flow, rdma_core_since, params, args).
// `flow`: which way the WR's data crosses the link (post_shape.h).
// `rdma_core_since`: the first rdma-core release with the slot (a slot newer
// than the running library must never be touched).
#define VERBSEMU_QP_EX_OPS(OP)                                              \
  OP(wr_atomic_cmp_swp, Flow::kIn, 0,                                       \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, uint64_t compare,      \
      uint64_t swap),                                                       \
     (qpx, rkey, addr, compare, swap))                                      \
  OP(wr_atomic_fetch_add, Flow::kIn, 0,                                     \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, uint64_t add),         \
     (qpx, rkey, addr, add))                                                \
  OP(wr_bind_mw, Flow::kNone, 0,                                            \
     (ibv_qp_ex * qpx, ibv_mw * mw, uint32_t rkey,                          \
      const ibv_mw_bind_info* info),                                        \
     (qpx, mw, rkey, info))                                                 \
  OP(wr_local_inv, Flow::kNone, 0, (ibv_qp_ex * qpx, uint32_t rkey),        \
     (qpx, rkey))                                                           \
  OP(wr_rdma_read, Flow::kIn, 0,                                            \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr), (qpx, rkey, addr))    \
  OP(wr_rdma_write, Flow::kOut, 0,                                          \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr), (qpx, rkey, addr))    \
  OP(wr_rdma_write_imm, Flow::kOut, 0,                                      \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, __be32 imm),           \
     (qpx, rkey, addr, imm))                                                \
  OP(wr_send, Flow::kOut, 0, (ibv_qp_ex * qpx), (qpx))                      \
  OP(wr_send_imm, Flow::kOut, 0, (ibv_qp_ex * qpx, __be32 imm), (qpx, imm)) \
  OP(wr_send_inv, Flow::kOut, 0, (ibv_qp_ex * qpx, uint32_t rkey),          \
     (qpx, rkey))                                                           \
  OP(wr_send_tso, Flow::kOut, 0,                                            \
     (ibv_qp_ex * qpx, void* hdr, uint16_t hdr_sz, uint16_t mss),           \
     (qpx, hdr, hdr_sz, mss))                                               \
  OP(wr_atomic_write, Flow::kOut, 44,                                       \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, const void* data),     \
     (qpx, rkey, addr, data))

// Batch control and data setters, each with a hand-written wrapper:
// CALL(slot, wrapper, rdma_core_since, counts). `counts`: the wrapper only
// counts bytes, so it is installed only when something needs the count
// (bandwidth emulation, the report); like the OP wrappers.
#define VERBSEMU_QP_EX_CALLS(CALL)                            \
  CALL(wr_set_inline_data, WrSetInlineData, 0, true)          \
  CALL(wr_set_inline_data_list, WrSetInlineDataList, 0, true) \
  CALL(wr_set_sge, WrSetSge, 0, true)                         \
  CALL(wr_set_sge_list, WrSetSgeList, 0, true)                \
  CALL(wr_start, WrStart, 0, false)                           \
  CALL(wr_complete, WrComplete, 0, false)                     \
  CALL(wr_abort, WrAbort, 0, false)

namespace verbsemu::shim::internal {

// The provider's functions behind the wrapped slots.
struct QpExSlots {
#define VERBSEMU_OP_FIELD(slot, flow, since, params, args) \
  decltype(ibv_qp_ex::slot) slot = nullptr;  // NOLINT
#define VERBSEMU_CALL_FIELD(slot, wrapper, since, counts) \
  decltype(ibv_qp_ex::slot) slot = nullptr;  // NOLINT
  VERBSEMU_QP_EX_OPS(VERBSEMU_OP_FIELD)
  VERBSEMU_QP_EX_CALLS(VERBSEMU_CALL_FIELD)
#undef VERBSEMU_OP_FIELD
#undef VERBSEMU_CALL_FIELD
};

// For every non-NULL slot that rdma-core `version` has and that does not
// hold the shim's wrapper: saves the provider's function into `provider`
// and installs the wrapper. Idempotent, so running it again after a
// provider rewrote some slots wraps exactly those again. Without
// `count_bytes` only batch control (wr_start, wr_complete, wr_abort) and
// the round-trip opcodes (READ, atomics: two one-way latencies) are
// wrapped: other opcodes and the setters go straight to the provider.
void WrapQpEx(ibv_qp_ex* qpx, QpExSlots* provider, int rdma_core_version,
              bool count_bytes);
// Puts the provider's functions back.
void UnwrapQpEx(ibv_qp_ex* qpx, const QpExSlots& provider);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_
