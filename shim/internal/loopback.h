// Loopback QPs: a QP connected to itself never crosses the emulated link
// (NCCL's GPUDirect flush, a 1-byte RDMA READ on a QP connected to itself,
// is one on every receive), so its posts go straight to the provider: no
// latency, no pacing, no padding. A VERBSEMU_TOPOLOGY class that names that
// destination still applies. Two QPs of one port connected to each other
// (two processes or ranks through one NIC) are emulated as any peers.
#ifndef VERBSEMU_SHIM_INTERNAL_LOOPBACK_H_
#define VERBSEMU_SHIM_INTERNAL_LOOPBACK_H_

#include <infiniband/verbs.h>

namespace verbsemu::shim::internal {

struct QpState;

// At RTR (or adoption), after ClassifyPeer: sets q->loopback when q is an
// RC/UC QP in no link class connected to its own QP number at an address
// vector that names its own port (its dgid is one of the port's GIDs, or,
// without a GRH, its dlid is the port's LID), and counts it for the report.
void DetectLoopback(QpState* q);

// Whether the address vector `av` of a QP on `port` of `ctx` names that
// same port.
bool NamesOwnPort(ibv_context* ctx, uint8_t port, const ibv_ah_attr& av);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_LOOPBACK_H_
