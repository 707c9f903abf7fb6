// The reads of an extended CQ's current completion (ibv_cq_ex's read_*
// functions, ibv_wc_read_* in libibverbs), as one table: the slot, its
// type, and the ibv_wc field it reads (a completion the shim or the fake
// device holds as an ibv_wc). read_tm_info, the one that fills a struct,
// is handled apart.
#ifndef VERBSEMU_SHIM_INTERNAL_CQ_EX_FIELDS_H_
#define VERBSEMU_SHIM_INTERNAL_CQ_EX_FIELDS_H_

#include <infiniband/verbs.h>

#include <cstdint>

// X(slot, type, value read from `wc`)
#define VERBSEMU_CQ_EX_READS(X)                                  \
  X(read_opcode, ibv_wc_opcode, wc.opcode)                       \
  X(read_vendor_err, uint32_t, wc.vendor_err)                    \
  X(read_byte_len, uint32_t, wc.byte_len)                        \
  X(read_imm_data, __be32, wc.imm_data)                          \
  X(read_qp_num, uint32_t, wc.qp_num)                            \
  X(read_src_qp, uint32_t, wc.src_qp)                            \
  X(read_wc_flags, unsigned, static_cast<unsigned>(wc.wc_flags)) \
  X(read_slid, uint32_t, wc.slid)                                \
  X(read_sl, uint8_t, wc.sl)                                     \
  X(read_dlid_path_bits, uint8_t, wc.dlid_path_bits)             \
  X(read_completion_ts, uint64_t, uint64_t{0})                   \
  X(read_cvlan, uint16_t, uint16_t{0})                           \
  X(read_flow_tag, uint32_t, uint32_t{0})                        \
  X(read_completion_wallclock_ns, uint64_t, uint64_t{0})

#endif  // VERBSEMU_SHIM_INTERNAL_CQ_EX_FIELDS_H_
