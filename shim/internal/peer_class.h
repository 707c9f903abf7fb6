// Which VERBSEMU_TOPOLOGY class a connected QP's peer falls in (at RTR, from
// its address vector and the local port's GID and LID), and so which
// latency law and which virtual link its posts get (docs/topology.md).
#ifndef VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_
#define VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_

namespace verbsemu::shim::internal {

struct QpState;

// Sets q->link_class and q->law; no topology, or a QP without an address
// vector: the global settings hold.
void ClassifyPeer(QpState* q);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PEER_CLASS_H_
