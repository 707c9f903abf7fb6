#include "shim/internal/peer_class.h"

#include <cstring>

#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

std::array<uint8_t, 16> GidBytes(const ibv_gid& gid) {
  std::array<uint8_t, 16> bytes;
  std::memcpy(bytes.data(), gid.raw, bytes.size());
  return bytes;
}

}  // namespace

emulate::PortAddress LocalAddress(ibv_context* ctx, uint8_t port,
                                  const ibv_ah_attr& av) {
  emulate::PortAddress local;
  ibv_gid gid;
  if (av.is_global && Real().query_gid != nullptr &&
      Real().query_gid(ctx, port, av.grh.sgid_index, &gid) == 0) {
    local.gid = GidBytes(gid);
  }
  ibv_port_attr attr{};
  if (Real().query_port != nullptr &&
      Real().query_port(ctx, port, &attr) == 0 && attr.lid != 0) {
    local.lid = attr.lid;
  }
  return local;
}

emulate::PortAddress PeerAddress(const ibv_ah_attr& av) {
  emulate::PortAddress peer;
  if (av.is_global) peer.gid = GidBytes(av.grh.dgid);
  if (av.dlid != 0) peer.lid = av.dlid;
  return peer;
}

void ClassifyPeer(QpState* q) {
  Engine& e = E();
  const auto& topology = e.settings.topology;
  if (topology == nullptr) return;
  ibv_ah_attr av;
  std::optional<CmEnds> cm;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (!q->have_av && !q->cm_ends) return;
    av = q->av;
    if (!q->have_av) cm = q->cm_ends;
  }
  // Without an address vector (iWARP), the ends rdma_cm connected.
  const int c =
      cm ? topology->topology.Match(cm->local, cm->peer)
         : topology->topology.Match(LocalAddress(q->ctx->ctx, q->port, av),
                                    PeerAddress(av));
  q->link_class.store(c, std::memory_order_relaxed);
  q->law.store(c >= 0 ? e.classes.laws[static_cast<size_t>(c)].get() : nullptr,
               std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(e.mu);
  const size_t slot =
      c >= 0 ? static_cast<size_t>(c) : e.classes.qps.size() - 1;
  if (slot < e.classes.qps.size()) ++e.classes.qps[slot];
}

void ClassifyAh(const ibv_ah* ah, const ibv_ah_attr& attr) {
  Engine& e = E();
  const auto& topology = e.settings.topology;
  if (topology == nullptr || ah == nullptr ||
      e.contexts.Find(ah->context) == nullptr) {
    return;
  }
  const uint8_t port = attr.port_num != 0 ? attr.port_num : 1;
  const int c = topology->topology.Match(LocalAddress(ah->context, port, attr),
                                         PeerAddress(attr));
  LatencyLaw* law =
      c >= 0 ? e.classes.laws[static_cast<size_t>(c)].get() : nullptr;
  std::lock_guard<std::mutex> lock(e.mu);
  ++e.classes.classified_ahs;
  if (law != nullptr && e.classes.ah_laws.Find(ah) == nullptr) {
    if (!e.classes.ah_laws.Insert(ah, law)) {
      NoteTableFull(Table::kUdAhs, e.classes.ah_laws.capacity());
    }
  }
}

void ForgetAh(const ibv_ah* ah) {
  Engine& e = E();
  if (e.classes.ah_laws.Find(ah) == nullptr) return;
  std::lock_guard<std::mutex> lock(e.mu);
  e.classes.ah_laws.Erase(ah);
}

LatencyLaw* AhLaw(const ibv_ah* ah) {
  return ah != nullptr ? E().classes.ah_laws.Find(ah) : nullptr;
}

}  // namespace verbsemu::shim::internal
