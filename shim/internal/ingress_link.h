// VERBSEMU_FABRIC=links: each port's ingress beside its egress (port_link.h).
// A port's ingress is one pacing schedule in a shared segment named after
// the port's address as senders know it (its GID, else its LID:
// IngressSegmentName), on which every process of the user and job on the
// node reserves what it sends to that address, and the port's own
// processes what their READs and atomics bring back. So n senders into one
// narrowed port share its rate, as on a fabric whose receiving link is the
// bottleneck (an incast), while each sender's own egress still holds.
// Within one shared-memory domain: a node, or the test bed's one guest;
// senders on other nodes do not see each other's reservations.
//
// A transfer reserves on its egress and on its ingress independently and
// starts at the later of the two: the "links" model of docs/contention.md,
// which is max-min sharing where one link is the bottleneck and only an
// approximation of it where both are shared. A deferred post reserves its
// peer's ingress only when it is at the head of its queue and its first
// byte leaves its egress (data_path.cc DeferredDueTime, defer.cc
// BookLateIngress), so the senders into a port take turns WR by WR in the
// order their bytes reach it; a spinning post reserves both when posted (it
// blocks until its release, so it has nothing queued behind it).
#ifndef VERBSEMU_SHIM_INTERNAL_INGRESS_LINK_H_
#define VERBSEMU_SHIM_INTERNAL_INGRESS_LINK_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "emulate/pacer.h"
#include "emulate/topology.h"
#include "shim/internal/shm_segment.h"

namespace verbsemu::shim::internal {

struct PortLink;
struct QpState;

// A port's ingress schedule in shared memory. Zero-filled is new.
struct SharedIngress {
  static constexpr uint64_t kTag = SegmentTag(3, 1);  // name: -in-v1-
  std::atomic<uint64_t> tag{0};
  emulate::PacerState in;
};

// "g" and the GID's 32 hex digits, else "l" and the LID, else "" (no
// address: nothing to key an ingress on).
std::string AddressKey(const emulate::PortAddress& address);

// The ingress links this process reserves on, one per address, each made on
// first use and kept to the end.
class IngressLinks {
 public:
  // The ingress of `address` (AddressKey) at the rate of `like` (its target
  // and real rate: every port is taken to be narrowed as the sender's own
  // link is); null when `like` has no target rate or `address` is "".
  emulate::Pacer* Get(const std::string& address, const PortLink& like);
  size_t size() const;
  // Drops every link (ResetForTesting: no QP holds one then).
  void ClearForTesting();

 private:
  struct Entry {
    SharedObjectPtr<SharedIngress> shared;  // null: this process's own
    std::unique_ptr<emulate::Pacer> pacer;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> links_;
};

// At RTR, after AttachLink: binds q's peer's ingress (for what it sends)
// and its own port's (for what its READs and atomics bring back). Nothing
// unless VERBSEMU_FABRIC=links and q's link has a target rate; a QP without
// a connected address vector (UD, SRD, iWARP, DCI) gets a warning, once.
void AttachIngress(QpState* q);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_INGRESS_LINK_H_
