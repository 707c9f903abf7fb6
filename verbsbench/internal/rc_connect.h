// Bringing an RC QP from RESET to RTS against a peer's endpoint as the
// control channel carries it ({"qpn", "psn", "lid", "gid", "mtu"}): one
// place for every mode that connects RC QPs itself (the fabric's
// endpoints, contend's per-edge QPs). Fails with Fail() (verbs.h).
#ifndef VERBSEMU_VERBSBENCH_INTERNAL_RC_CONNECT_H_
#define VERBSEMU_VERBSBENCH_INTERNAL_RC_CONNECT_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace verbsbench::internal {

// This side of the connection.
struct RcLocal {
  uint8_t port = 1;
  ibv_mtu active_mtu = IBV_MTU_1024;
  bool global = false;  // RoCE, or a GID index given: the address has a GRH
  int gid_index = 0;
  uint32_t psn = 0;
  unsigned access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
};

// RESET -> INIT. A caller that posts receives does so before RcToRts.
void RcToInit(ibv_qp* qp, const RcLocal& local);

// INIT -> RTR -> RTS against `remote`: the path MTU the smaller of both
// ends', one outstanding READ each way.
void RcToRts(ibv_qp* qp, const RcLocal& local, const nlohmann::json& remote);

}  // namespace verbsbench::internal

#endif  // VERBSEMU_VERBSBENCH_INTERNAL_RC_CONNECT_H_
