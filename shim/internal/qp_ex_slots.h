// The ibv_qp_ex slots the shim wraps, listed once. Saving the provider's
// functions, the wrappers, wrapping and unwrapping are all generated from
// these two lists, so they cannot drift apart.
#ifndef VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_
#define VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_

#include <infiniband/verbs.h>

#include "shim/internal/post_shape.h"

// How much of ibv_qp_ex a QP needs wrapped (each level includes the ones
// before it). Slots below are installed when the QP's level reaches theirs.
#define VERBSEMU_QP_EX_LEVELS(L)                                          \
  /* latency alone on a QP whose send ops declare no READ and no atomic:  \
     wr_start, which waits the batch's one one-way latency, and the       \
     round-trip opcodes, whose first use lifts the QP to kRoundTrips */   \
  L(kStart)                                                               \
  /* latency alone, batches posted straight through: batch control and    \
     the round-trip opcodes (READ, atomics owe two one-way latencies) */  \
  L(kRoundTrips)                                                          \
  /* bytes counted (bandwidth emulation on a direct QP, or the report) */ \
  L(kCount)                                                               \
  /* batches recorded and replayed after the wait: every slot */          \
  L(kRecord)

// Work-request opcodes: OP(slot, flow, rdma_core_since, keep, params, args).
// `flow`: which way the WR's data crosses the link (post_shape.h); kIn
// opcodes are wrapped from kStart, the others from kCount.
// `rdma_core_since`: the first rdma-core release with the slot (a slot newer
// than the running library must never be touched).
// `keep`: copies what a pointer argument points to into the recording `r`
// (the application may reuse it once the call returns).
#define VERBSEMU_QP_EX_OPS(OP)                                                \
  OP(wr_atomic_cmp_swp, Flow::kIn, 0, ,                                       \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, uint64_t compare,        \
      uint64_t swap),                                                         \
     (qpx, rkey, addr, compare, swap))                                        \
  OP(wr_atomic_fetch_add, Flow::kIn, 0, ,                                     \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, uint64_t add),           \
     (qpx, rkey, addr, add))                                                  \
  OP(wr_bind_mw, Flow::kNone, 0, info = r->Keep(info, 1),                     \
     (ibv_qp_ex * qpx, ibv_mw * mw, uint32_t rkey,                            \
      const ibv_mw_bind_info* info),                                          \
     (qpx, mw, rkey, info))                                                   \
  OP(wr_local_inv, Flow::kNone, 0, , (ibv_qp_ex * qpx, uint32_t rkey),        \
     (qpx, rkey))                                                             \
  OP(wr_rdma_read, Flow::kIn, 0, ,                                            \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr), (qpx, rkey, addr))      \
  OP(wr_rdma_write, Flow::kOut, 0, ,                                          \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr), (qpx, rkey, addr))      \
  OP(wr_rdma_write_imm, Flow::kOut, 0, ,                                      \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, __be32 imm),             \
     (qpx, rkey, addr, imm))                                                  \
  OP(wr_send, Flow::kOut, 0, , (ibv_qp_ex * qpx), (qpx))                      \
  OP(wr_send_imm, Flow::kOut, 0, , (ibv_qp_ex * qpx, __be32 imm), (qpx, imm)) \
  OP(wr_send_inv, Flow::kOut, 0, , (ibv_qp_ex * qpx, uint32_t rkey),          \
     (qpx, rkey))                                                             \
  OP(wr_send_tso, Flow::kOut, 0,                                              \
     hdr = r->Keep(static_cast<char*>(hdr), hdr_sz),                          \
     (ibv_qp_ex * qpx, void* hdr, uint16_t hdr_sz, uint16_t mss),             \
     (qpx, hdr, hdr_sz, mss))                                                 \
  OP(wr_atomic_write, Flow::kOut, 44,                                         \
     data = r->Keep(static_cast<const char*>(data), 8),                       \
     (ibv_qp_ex * qpx, uint32_t rkey, uint64_t addr, const void* data),       \
     (qpx, rkey, addr, data))

// Addressing setters, recorded like the opcodes and otherwise never
// wrapped: SET(slot, rdma_core_since, params, args).
#define VERBSEMU_QP_EX_SETTERS(SET)                                \
  SET(wr_set_ud_addr, 0,                                           \
      (ibv_qp_ex * qpx, ibv_ah * ah, uint32_t qpn, uint32_t qkey), \
      (qpx, ah, qpn, qkey))                                        \
  SET(wr_set_xrc_srqn, 0, (ibv_qp_ex * qpx, uint32_t srqn), (qpx, srqn))

// Batch control and data setters, each with a hand-written wrapper:
// CALL(slot, wrapper, rdma_core_since, level). The data setters count
// bytes, so they are installed from kCount.
#define VERBSEMU_QP_EX_CALLS(CALL)                                         \
  CALL(wr_set_inline_data, WrSetInlineData, 0, QpExLevel::kCount)          \
  CALL(wr_set_inline_data_list, WrSetInlineDataList, 0, QpExLevel::kCount) \
  CALL(wr_set_sge, WrSetSge, 0, QpExLevel::kCount)                         \
  CALL(wr_set_sge_list, WrSetSgeList, 0, QpExLevel::kCount)                \
  CALL(wr_start, WrStart, 0, QpExLevel::kStart)                            \
  CALL(wr_complete, WrComplete, 0, QpExLevel::kRoundTrips)                 \
  CALL(wr_abort, WrAbort, 0, QpExLevel::kRoundTrips)

namespace verbsemu::shim::internal {

enum class QpExLevel : uint8_t {
#define VERBSEMU_LEVEL(name) name,
  VERBSEMU_QP_EX_LEVELS(VERBSEMU_LEVEL)
#undef VERBSEMU_LEVEL
};

// The provider's functions behind the wrapped slots.
struct QpExSlots {
#define VERBSEMU_SLOT_FIELD(slot, ...) \
  decltype(ibv_qp_ex::slot) slot = nullptr;  // NOLINT
  VERBSEMU_QP_EX_OPS(VERBSEMU_SLOT_FIELD)
  VERBSEMU_QP_EX_SETTERS(VERBSEMU_SLOT_FIELD)
  VERBSEMU_QP_EX_CALLS(VERBSEMU_SLOT_FIELD)
#undef VERBSEMU_SLOT_FIELD
};

// For every non-NULL slot that rdma-core `version` has, that `level` needs
// and that does not hold the shim's wrapper: saves the provider's function
// into `provider` and installs the wrapper. Idempotent, so running it again
// after a provider rewrote some slots wraps exactly those again.
void WrapQpEx(ibv_qp_ex* qpx, QpExSlots* provider, int rdma_core_version,
              QpExLevel level);
// Puts the provider's functions back.
void UnwrapQpEx(ibv_qp_ex* qpx, const QpExSlots& provider);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_QP_EX_SLOTS_H_
