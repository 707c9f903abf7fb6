// Which VERBSEMU_TOPOLOGY class a connected QP's peer falls in (at RTR, from
// its address vector and the local port's GID and LID), and so which
// latency law and which virtual link its posts get (docs/topology.md).
#ifndef VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_
#define VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "emulate/topology.h"
#include "shim/internal/latency_law.h"
#include "shim/internal/ptr_map.h"

namespace verbsemu::shim::internal {

// VERBSEMU_TOPOLOGY's part of the shim's state (Engine::classes).
struct PeerClasses {
  // Per class: its latency law (null: the global one).
  std::vector<std::unique_ptr<LatencyLaw>> laws;
  // How many QPs' peers fell in each class (the last entry: in none); under
  // Engine::mu.
  std::vector<uint64_t> qps;
  // UD address handles whose destination falls in a class with a latency:
  // the class's law.
  PtrMap<LatencyLaw> ah_laws{12};
  uint64_t classified_ahs = 0;  // under Engine::mu
};

struct QpState;

// A connection's local end (the GID the address vector sends from on
// `port`, the port's LID) and its peer's (the vector's GID and LID).
emulate::PortAddress LocalAddress(ibv_context* ctx, uint8_t port,
                                  const ibv_ah_attr& av);
emulate::PortAddress PeerAddress(const ibv_ah_attr& av);

// Sets q->link_class and q->law; no topology, or a QP without an address
// vector: the global settings hold.
void ClassifyPeer(QpState* q);
// A UD address handle made on an emulated context: notes its class's law
// (ibv_create_ah), forgets it (ibv_destroy_ah).
void ClassifyAh(const ibv_ah* ah, const ibv_ah_attr& attr);
void ForgetAh(const ibv_ah* ah);
// The law of a UD post's destination; null: the QP's (or the global) one.
LatencyLaw* AhLaw(const ibv_ah* ah);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_
