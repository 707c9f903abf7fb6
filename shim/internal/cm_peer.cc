#include "shim/internal/cm_peer.h"

#include <errno.h>
#include <netinet/in.h>

#include <cstring>
#include <mutex>

#include "shim/internal/boundary.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/port_link.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/registry.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

std::optional<std::array<uint8_t, 16>> GidOfSockaddr(const sockaddr* sa) {
  if (sa == nullptr) return std::nullopt;
  std::array<uint8_t, 16> gid{};
  if (sa->sa_family == AF_INET) {
    sockaddr_in sin;
    std::memcpy(&sin, sa, sizeof sin);
    gid[10] = 0xff;
    gid[11] = 0xff;
    std::memcpy(gid.data() + 12, &sin.sin_addr, 4);
    return gid;
  }
  if (sa->sa_family == AF_INET6) {
    sockaddr_in6 sin6;
    std::memcpy(&sin6, sa, sizeof sin6);
    std::memcpy(gid.data(), &sin6.sin6_addr, gid.size());
    return gid;
  }
  return std::nullopt;
}

void NoteCmEnds(const rdma_cm_id* id) noexcept {
  if (id == nullptr || id->qp == nullptr) return;
  ShimStep("rdma_cm connection ends", [id] {
    QpState* q = LiveQp(id->qp);
    if (q == nullptr) return;
    emulate::PortAddress local, peer;
    local.gid = GidOfSockaddr(&id->route.addr.src_addr);
    peer.gid = GidOfSockaddr(&id->route.addr.dst_addr);
    if (!peer.gid) return;
    bool attached;
    {
      std::lock_guard<std::mutex> lock(q->mu);
      if (q->have_av) return;  // the address vector decides
      q->cm_ends = CmEnds{local, peer};
      attached = q->link.load(std::memory_order_acquire) != nullptr;
    }
    // Past RTR already: classify now (else RTR does).
    if (attached) {
      ClassifyPeer(q);
      AttachLink(q);
    }
  });
}

namespace {

template <auto Member>
int CallReal(const char* name, rdma_cm_id* id,
             rdma_conn_param* param) noexcept {
  const auto real = RealRdmaCm<Member>(name);
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return real(id, param);
}

}  // namespace

int CmConnect(rdma_cm_id* id, rdma_conn_param* param) noexcept {
  NoteCmEnds(id);
  return CallReal<&RealVerbs::rdma_connect>("rdma_connect", id, param);
}

int CmAccept(rdma_cm_id* id, rdma_conn_param* param) noexcept {
  NoteCmEnds(id);
  return CallReal<&RealVerbs::rdma_accept>("rdma_accept", id, param);
}

}  // namespace verbsemu::shim::internal
