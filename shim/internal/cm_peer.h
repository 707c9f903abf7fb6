// Per-peer classes for QPs that rdma_cm connects without an address vector
// (iWARP: irdma's default on E810, cxgb4, siw). Their RTR carries no AV, so
// the shim learns the two ends where the application hands rdma_cm the
// connection: rdma_connect (active side) and rdma_accept (passive side), from
// the cm id's resolved route. The addresses match VERBSEMU_TOPOLOGY routes as
// a RoCE GID holding them would (an IPv4 address as ::ffff:a.b.c.d). A QP
// with an address vector keeps the AV's answer. Only QPs made with
// rdma_create_qp (the id's qp) are seen: a stack that passes its own QP's
// number in rdma_conn_param keeps the global settings for it.
#ifndef VERBSEMU_SHIM_INTERNAL_CM_PEER_H_
#define VERBSEMU_SHIM_INTERNAL_CM_PEER_H_

#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>

namespace verbsemu::shim::internal {

// The 16 bytes a GID of this IP address would hold; nullopt for anything but
// AF_INET and AF_INET6.
std::optional<std::array<uint8_t, 16>> GidOfSockaddr(const sockaddr* sa);

// Notes `id`'s two ends on its QP, classifying it now if its link is already
// attached (else at RTR). Never fails: a QP the shim does not know is left
// alone.
void NoteCmEnds(const rdma_cm_id* id) noexcept;

// The exported rdma_connect/rdma_accept: NoteCmEnds, then librdmacm's own
// (ENOSYS when it cannot be found).
int CmConnect(rdma_cm_id* id, rdma_conn_param* param) noexcept;
int CmAccept(rdma_cm_id* id, rdma_conn_param* param) noexcept;

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_CM_PEER_H_
