// What stress_test and chaos_test share: every knob a QP can run under,
// and one signaled 256-byte RDMA write as either posting API makes it.
#ifndef VERBSEMU_SHIM_STRESS_KNOBS_H_
#define VERBSEMU_SHIM_STRESS_KNOBS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emulate/config.h"

namespace verbsemu::shim::internal {

struct Knob {
  std::string name;
  emulate::Config config;
};

// None, latency, pad (every 16 posts of 256 bytes), pace.
inline std::vector<Knob> Knobs() {
  std::vector<Knob> all(4);
  all[0].name = "none";
  all[1].name = "latency";
  all[1].config.latency_ns = 1000;
  all[2].name = "pad";
  all[2].config.bandwidth = *emulate::ParseBandwidth("50%");
  all[2].config.pad_threshold_bytes = 4096;  // pads every 16 posts
  all[3].name = "pace";
  all[3].config.bandwidth = *emulate::ParseBandwidth("100Gbit/s");
  all[3].config.bw_mode = emulate::BwMode::kPace;
  all[3].config.link_bits_per_s = 1e12;
  return all;
}

// One signaled RDMA write of 256 bytes: through ibv_wr_* when `qpx` is
// set, else ibv_post_send on `qp`. Returns the post's result.
inline int PostSignaledWrite(ibv_qp* qp, ibv_qp_ex* qpx, uint64_t wr_id) {
  if (qpx != nullptr) {
    ibv_wr_start(qpx);
    qpx->wr_id = wr_id;
    qpx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(qpx, 1, 0x2000);
    ibv_wr_set_sge(qpx, 1, 0x1000, 256);
    return ibv_wr_complete(qpx);
  }
  ibv_sge sge{0x1000, 256, 1};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp, &wr, &bad);
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_STRESS_KNOBS_H_
