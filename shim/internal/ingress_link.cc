#include "shim/internal/ingress_link.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "emulate/delay_distribution.h"
#include "shim/internal/peer_class.h"
#include "shim/internal/port_link.h"
#include "shim/internal/report.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

std::string AddressKey(const emulate::PortAddress& address) {
  if (address.gid) {
    std::string key = "g";
    char hex[3];
    for (const uint8_t b : *address.gid) {
      std::snprintf(hex, sizeof hex, "%02x", b);
      key += hex;
    }
    return key;
  }
  if (address.lid) return "l" + std::to_string(*address.lid);
  return "";
}

uint64_t IngressLink::TurnWait(uint64_t booker, uint64_t now,
                               uint64_t bytes) const {
  return emulate::TurnWait(*turns_, booker, now, pacer_->FreeAt(),
                           pacer_->LeadTicks(bytes) / 4);
}

uint64_t IngressLink::Book(uint64_t booker, uint64_t start, uint64_t bytes) {
  const uint64_t release =
      pacer_->Reserve(start, bytes, emulate::Pacer::Sender::kQueued);
  emulate::TookTurn(*turns_, booker);
  return release;
}

uint64_t BookerName(const QpState& q) {
  // 63 bits of a hash: two QPs of a node share a name with odds 2^-63.
  return emulate::RandomBits(static_cast<uint64_t>(getpid()),
                             reinterpret_cast<uintptr_t>(&q), 0) |
         1;
}

IngressLink* IngressLinks::Get(const std::string& address,
                               const PortLink& like) {
  if (address.empty() || like.target_bps <= 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = links_[address];
  if (entry.link == nullptr) {
    Engine& e = E();
    std::string why;
    entry.shared = MapShared<SharedIngress>(
        e.bypass.paths.shm_dir, IngressSegmentName(e.bypass.paths, address),
        &why);
    if (entry.shared == nullptr) {
      WarnOnce(WarningCode::kSharedIngressPrivate, {address, why});
    }
    entry.link = std::make_unique<IngressLink>(
        MakeLinkPacer(like.target_bps, like.real_bps,
                      entry.shared != nullptr ? &entry.shared->in : nullptr),
        entry.shared != nullptr ? &entry.shared->turns : nullptr);
  }
  return entry.link.get();
}

size_t IngressLinks::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return links_.size();
}

void IngressLinks::ClearForTesting() {
  std::lock_guard<std::mutex> lock(mu_);
  links_.clear();
}

namespace {

void WarnNoPeerAddress(const QpState& q) {
  if (!FirstTime(WarningCode::kIngressUnknown)) return;
  char qpn[16];
  std::snprintf(qpn, sizeof qpn, "0x%06x", q.qpn);
  Warn(WarningCode::kIngressUnknown, {QpTypeName(q.type), qpn, q.ctx->device});
}

// VERBSEMU_FABRIC=penalty for q: a deferring QP (the others share links,
// said once).
bool UsesPenalty(const Engine& e, const QpState& q) {
  if (e.settings.engine.fabric != emulate::Fabric::kPenalty ||
      e.bw.penalties == nullptr) {
    return false;
  }
  if (q.defer != nullptr) return true;
  WarnOnce(WarningCode::kPenaltyNeedsDefer, {});
  return false;
}

}  // namespace

void AttachIngress(QpState* q) {
  Engine& e = E();
  if (!e.emulating || e.settings.engine.fabric == emulate::Fabric::kEgress) {
    return;
  }
  const PortLink* link = q->link.load(std::memory_order_acquire);
  if (link == nullptr || link->target_bps <= 0) return;
  ibv_ah_attr av;
  std::optional<CmEnds> cm;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (!q->have_av && !q->cm_ends) return WarnNoPeerAddress(*q);
    av = q->av;
    if (!q->have_av) cm = q->cm_ends;
  }
  // Without an address vector (iWARP), the ends rdma_cm connected.
  const std::string peer = AddressKey(cm ? cm->peer : PeerAddress(av));
  const std::string own =
      AddressKey(cm ? cm->local : LocalAddress(q->ctx->ctx, q->port, av));
  IngressLink* own_in = e.bw.ingress.Get(own, *link);
  q->ingress_own.store(own_in != nullptr ? &own_in->pacer() : nullptr,
                       std::memory_order_release);
  if (UsesPenalty(e, *q) && !peer.empty() && !own.empty()) {
    // Its sends take the rate of its flow's penalty instead of its egress
    // and its peer's ingress.
    q->flow.Reset(e.bw.flows.Claim(own, peer));
    if (q->flow.get() != nullptr) return;
  }
  q->ingress_peer.store(e.bw.ingress.Get(peer, *link),
                        std::memory_order_release);
}

}  // namespace verbsemu::shim::internal
