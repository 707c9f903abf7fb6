// The emulated link of one (context, port): its real and target rates, the
// pacers (outbound in pace mode, inbound in both) or the padding ratio and
// sender (pad mode). Built on first use, its rate from DecidePortRate; QPs
// bind to it at RTR.
#ifndef VERBSEMU_SHIM_INTERNAL_PORT_LINK_H_
#define VERBSEMU_SHIM_INTERNAL_PORT_LINK_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/enum_table.h"
#include "emulate/config.h"
#include "emulate/pacer.h"
#include "shim/internal/fabric_flows.h"
#include "shim/internal/ingress_link.h"
#include "shim/internal/pad_sender.h"
#include "shim/internal/port_traffic.h"
#include "shim/internal/segment_key.h"
#include "shim/internal/shm_segment.h"

namespace verbsemu::shim::internal {

struct ContextState;
struct QpState;

// The bandwidth emulation's part of the shim's state (Engine::bw).
struct BandwidthState {
  // How bandwidth is taken away, chosen once when the shim is configured
  // (--bw-mode); none when no bandwidth is set, globally or for a topology
  // class.
  std::optional<emulate::BwMode> shaper;
  bool pad() const { return shaper == emulate::BwMode::kPad; }
  bool pace() const { return shaper == emulate::BwMode::kPace; }
  // Its spelling ("pad", "pace"), or "" for none: the report's name.
  const char* ShaperName() const {
    return shaper ? base::EnumName(*shaper) : "";
  }
  // Each emulated link's real rate and its source, for the report: (device,
  // line). A leaf lock: taken under a context's mu.
  std::mutex notes_mu;
  std::vector<std::pair<std::string, std::string>> notes;
  // Shared link schedules found booked beyond any real backlog (port_link.cc
  // kMaxAheadNs, kMaxBacklogBytes), or with an epoch after now, and reset
  // (emulate/pacer.h).
  std::atomic<uint64_t> resets{0};
  // VERBSEMU_FABRIC=links: the ports' ingress links this process sends to.
  IngressLinks ingress;
  // VERBSEMU_FABRIC=penalty: the node's flows, and the model of their
  // penalties (mm2011-node).
  FabricFlows flows;
  const contention::Model* penalty_model = nullptr;
};

// One virtual link per physical port: the schedules of a (user, job,
// physical port) in shared memory (named by LinkSegmentName,
// segment_key.h), which every shim process of the user and job on the node
// pacing on that port reserves on, so that together they get the target
// rate (every rank of a node, and every VF of a port, shares the port's one
// link). Zero-filled is new.
struct SharedLink {
  static constexpr uint64_t kTag = SegmentTag(1, 2);  // name: link-v2
  std::atomic<uint64_t> tag{0};
  emulate::PacerState out;  // pace mode: what the port sends
  // VERBSEMU_GAP_SCOPE=port: the port's gap schedule (emulate/gap_clock.h),
  // TSC ticks. In what was padding: a shim that predates it leaves it zero.
  std::atomic<uint64_t> gap_next{0};
  alignas(64) emulate::PacerState in;  // reads and atomics: what comes back
};
static_assert(sizeof(SharedLink) == 128,
              "a new layout: change kTag's version and the name's -vN");

struct PortLink {
  uint8_t port = 1;
  double real_bps = 0;
  // Where real_bps came from (port_rate.h), or why it is unknown.
  std::string rate_source;
  double target_bps = 0;
  double pad_ratio = 0;  // B_real / B_target; 0: no padding
  uint32_t mtu_bytes = 1024;
  // The virtual link's two directions: what this side sends (pace mode),
  // and what its reads and atomics bring back (both modes).
  std::unique_ptr<emulate::Pacer> pacer_out, pacer_in;
  SharedObjectPtr<SharedLink> shared;  // their schedules; null: this process
  // The port's gap schedule: the shared one, else this process's own; and
  // how far ahead of now a shared one may be booked (0: unbounded).
  std::atomic<uint64_t> gap_own{0};
  std::atomic<uint64_t>* gap_next = &gap_own;
  uint64_t gap_max_ahead_ticks = 0;
  std::mutex pad_mu;
  std::unique_ptr<PadSender> pad;  // created on first padding
  bool pad_failed = false;
};

// Binds `q` to its port's link (at RTR, or when an unseen QP is adopted).
void AttachLink(QpState* q);

// A link direction's pacer at `target_bps` over a real link of `real_bps`
// (0: unknown), on the schedule `shared` in shared memory (bounded, as
// segments from other processes must be) or, when null, on its own.
std::unique_ptr<emulate::Pacer> MakeLinkPacer(double target_bps,
                                              double real_bps,
                                              emulate::PacerState* shared);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PORT_LINK_H_
