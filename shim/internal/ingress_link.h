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
// blocks until its release, so it has nothing queued behind it). Senders
// that reach a port's ingress at one instant take turns (emulate/turns.h):
// the last to book waits a quarter of its message's lead, so a sender whose
// queue always waits there does not take every tie from one that arrives
// as the port frees.
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
#include "emulate/turns.h"
#include "shim/internal/shm_segment.h"

namespace verbsemu::shim::internal {

struct PortLink;
struct QpState;

// A port's ingress schedule in shared memory. Zero-filled is new.
struct SharedIngress {
  static constexpr uint64_t kTag = SegmentTag(3, 2);  // name: -in-v2-
  std::atomic<uint64_t> tag{0};
  emulate::PacerState in;
  emulate::TurnState turns;
};

// One port's ingress as this process books it.
class IngressLink {
 public:
  IngressLink(std::unique_ptr<emulate::Pacer> pacer,
              emulate::TurnState* shared_turns)
      : pacer_(std::move(pacer)),
        turns_(shared_turns != nullptr ? shared_turns : &own_turns_) {}
  emulate::Pacer& pacer() { return *pacer_; }
  // 0 when `booker` (a queued sender's name, BookerName) may book `bytes`
  // at `now`; else when to look again (emulate/turns.h).
  uint64_t TurnWait(uint64_t booker, uint64_t now, uint64_t bytes) const;
  // Books `bytes` from `start` for a queued sender; its release.
  uint64_t Book(uint64_t booker, uint64_t start, uint64_t bytes);

 private:
  std::unique_ptr<emulate::Pacer> pacer_;
  emulate::TurnState own_turns_;
  emulate::TurnState* turns_;
};

// A queued sender's name on the ingress links, non-zero and unique among
// the QPs of every process on the node (a hash of its process and its QP's
// address in it).
uint64_t BookerName(const QpState& q);

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
  IngressLink* Get(const std::string& address, const PortLink& like);
  size_t size() const;
  // Drops every link (ResetForTesting: no QP holds one then).
  void ClearForTesting();

 private:
  struct Entry {
    SharedObjectPtr<SharedIngress> shared;  // null: this process's own
    std::unique_ptr<IngressLink> link;
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
