#include "verbsbench/internal/rc_connect.h"

#include <algorithm>
#include <string>

#include "verbsbench/internal/verbs.h"

namespace verbsbench::internal {

void RcToInit(ibv_qp* qp, const RcLocal& local) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = local.port;
  a.qp_access_flags = local.access;
  if (int err = ibv_modify_qp(qp, &a,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS)) {
    Fail("ibv_modify_qp INIT", err);
  }
}

void RcToRts(ibv_qp* qp, const RcLocal& local, const nlohmann::json& remote) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = static_cast<ibv_mtu>(
      std::min<int>(local.active_mtu, remote.at("mtu").get<int>()));
  a.dest_qp_num = remote.at("qpn").get<uint32_t>();
  a.rq_psn = remote.at("psn").get<uint32_t>();
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.dlid = remote.at("lid").get<uint16_t>();
  a.ah_attr.port_num = local.port;
  if (local.global) {
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = ParseGid(remote.at("gid").get<std::string>());
    a.ah_attr.grh.sgid_index = static_cast<uint8_t>(local.gid_index);
    a.ah_attr.grh.hop_limit = 64;
  }
  if (int err =
          ibv_modify_qp(qp, &a,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                            IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
    Fail("ibv_modify_qp RTR", err);
  }
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = local.psn;
  a.max_rd_atomic = 1;
  if (int err = ibv_modify_qp(qp, &a,
                              IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                  IBV_QP_MAX_QP_RD_ATOMIC)) {
    Fail("ibv_modify_qp RTS", err);
  }
}

}  // namespace verbsbench::internal
