#include "shim/internal/port_link.h"

#include <stddef.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "emulate/units.h"
#include "shim/internal/ingress_link.h"
#include "shim/internal/port_rate.h"
#include "shim/internal/report.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// How far a paced sender may fall behind the virtual link and catch up.
constexpr double kPaceBurstNs = 20'000;
// How far ahead of now a shared link may be booked: beyond it a value in
// the segment is not a real backlog (garbage, a stale file, another user's
// writes) and is reset, so that no post waits for it. A real backlog is
// what the node's senders have posted and not yet sent: in defer mode a
// deep send queue at a low rate (128 WRs of 64 KiB at 10 Mbit/s: 6.7 s),
// so the bound is 1 s or the time 1 GiB takes at the target rate.
constexpr double kMaxAheadNs = 1e9;
constexpr double kMaxBacklogBytes = double(uint64_t{1} << 30);

bool HasQueryPort(const verbs_context* v) {
  return v != nullptr &&
         v->sz >= sizeof(verbs_context) - offsetof(verbs_context, query_port) &&
         v->query_port != nullptr;
}

int QueryPort(ContextState* c, uint8_t port, ibv_port_attr* attr) {
  std::memset(attr, 0, sizeof(*attr));
  if (HasQueryPort(c->vctx)) {
    return c->vctx->query_port(c->ctx, port, attr, sizeof(*attr));
  }
  if (Real().query_port) return Real().query_port(c->ctx, port, attr);
  return ENOSYS;
}

uint32_t MtuBytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
  }
  return 1024;
}

double BytesPerTick(double bits_per_s) {
  return bits_per_s / 8.0 / 1e9 / E().cal.ticks_per_ns;
}

// Maps the port's shared schedules `segment` (pacing, a port's gap) once;
// when that fails, warns once and this process keeps schedules of its own.
SharedLink* MapSharedLink(PortLink* link, const std::string& device,
                          const std::string& segment) {
  Engine& e = E();
  if (link->shared != nullptr) return link->shared.get();
  std::string why;
  link->shared = MapShared<SharedLink>(e.bypass.paths.shm_dir, segment, &why);
  if (link->shared == nullptr) {
    WarnOnce(WarningCode::kSharedLinkPrivate,
             {device, std::to_string(link->port), why});
  }
  return link->shared.get();
}

// VERBSEMU_GAP_SCOPE=port: the port's gap schedule, shared by the node's
// processes on it (bounded as a shared pacer's is).
void ShareGap(PortLink* link, const std::string& device,
              const std::string& segment) {
  if (SharedLink* s = MapSharedLink(link, device, segment)) {
    link->gap_next = &s->gap_next;
    link->gap_max_ahead_ticks = E().cal.NsToTicks(kMaxAheadNs);
  }
}

}  // namespace

std::unique_ptr<emulate::Pacer> MakeLinkPacer(double target_bps,
                                              double real_bps,
                                              emulate::PacerState* shared) {
  Engine& e = E();
  const double target = BytesPerTick(target_bps);
  const double real = real_bps > 0 ? BytesPerTick(real_bps) : 0;
  const uint64_t burst = e.cal.NsToTicks(kPaceBurstNs);
  const uint64_t now = emulate::ReadTsc();
  if (shared == nullptr) {
    return std::make_unique<emulate::Pacer>(target, real, now, burst);
  }
  const uint64_t max_ahead =
      std::max<uint64_t>(e.cal.NsToTicks(kMaxAheadNs),
                         static_cast<uint64_t>(kMaxBacklogBytes / target));
  return std::make_unique<emulate::Pacer>(target, real, burst, *shared, now,
                                          max_ahead, &e.bw.resets);
}

namespace {

// Target rate `bw`, padding ratio and pacer of a link whose real rate is
// known (or 0 when unknown); `segment` names its shared schedule.
void ApplyBandwidth(PortLink* link, const std::string& device,
                    const emulate::BandwidthTarget& bw,
                    const std::string& segment) {
  Engine& e = E();
  link->target_bps = bw.TargetBitsPerS(link->real_bps);
  if (bw.kind == emulate::BandwidthTarget::Kind::kFraction) {
    link->pad_ratio = 1.0 / bw.fraction;
  } else if (link->real_bps > 0) {
    link->pad_ratio = link->real_bps / link->target_bps;
  }
  if (link->target_bps > 0) {
    MapSharedLink(link, device, segment);
    SharedLink* s = link->shared.get();
    // Pad mode paces the QPs it cannot pad (AttachLink).
    link->pacer_out = MakeLinkPacer(link->target_bps, link->real_bps,
                                    s != nullptr ? &s->out : nullptr);
    link->pacer_in = MakeLinkPacer(link->target_bps, link->real_bps,
                                   s != nullptr ? &s->in : nullptr);
  }
  const bool unknown =
      e.bw.pace() ? link->target_bps <= 0 : link->pad_ratio <= 0;
  if (unknown) {
    WarnOnce(WarningCode::kLinkRateUnknown,
             {device, std::to_string(link->port), link->rate_source});
  }
}

// The report's line of a link's real rate and where it came from.
void NoteRate(const PortLink& link, const std::string& device,
              const std::string& link_class) {
  const std::string rate = link.real_bps > 0
                               ? units::FormatBitsPerS(link.real_bps)
                               : std::string("unknown");
  std::string line = "  link port " + std::to_string(link.port) +
                     (link_class.empty() ? "" : " class " + link_class) +
                     ": real rate " + rate + " (" + link.rate_source + ")";
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.bw.notes_mu);
  for (const auto& [dev, seen] : e.bw.notes) {
    if (dev == device && seen == line) return;
  }
  e.bw.notes.emplace_back(device, std::move(line));
}

// Builds the (context, port) link, or a link class's own on that port, on
// first use. Caller holds c->mu.
PortLink* GetLinkLocked(ContextState* c, uint8_t port, int link_class) {
  if (port == 0 || port >= kMaxPorts) port = 1;
  const Engine& e = E();
  const emulate::LinkClass* lc =
      link_class >= 0 ? &e.settings.topology->topology
                             .classes()[static_cast<size_t>(link_class)]
                      : nullptr;
  if (lc != nullptr && !lc->bandwidth.enabled()) lc = nullptr;
  std::unique_ptr<PortLink>& slot =
      lc != nullptr ? c->class_links[port * kMaxClasses + link_class]
                    : c->links[port];
  if (slot) return slot.get();
  auto link = std::make_unique<PortLink>();
  link->port = port;
  ibv_port_attr attr;
  PortFacts facts;
  if (QueryPort(c, port, &attr) == 0) {
    facts = {attr.link_layer, attr.active_speed, attr.active_width};
    link->mtu_bytes = MtuBytes(attr.active_mtu);
  }
  const emulate::Config& config = e.settings.engine;
  const PortRate rate = DecidePortRate(e.bypass.paths, c->device, port, facts,
                                       config.link_bits_per_s);
  link->real_bps = rate.bits_per_s;
  link->rate_source = rate.source;
  const emulate::BandwidthTarget& bw =
      lc != nullptr ? lc->bandwidth : config.bandwidth;
  const std::string segment = LinkSegmentName(e.bypass.paths, c->device, port,
                                              lc != nullptr ? lc->name : "");
  if (bw.enabled()) {
    NoteRate(*link, c->device, lc != nullptr ? lc->name : "");
    ApplyBandwidth(link.get(), c->device, bw, segment);
  }
  if (e.loggp.gap_port && e.loggp.gap_ticks > 0)
    ShareGap(link.get(), c->device, segment);
  slot = std::move(link);
  return slot.get();
}

// The padding datagrams go to the QP's peer, known only from a connected
// QP's address vector: UD, EFA SRD (DRIVER), iWARP and DCI QPs are paced on
// the port's virtual link instead, when its rate is known.
// Once per process: other such QPs will be treated alike.
void WarnUnpadded(const QpState& q, bool paced) {
  const WarningCode code =
      paced ? WarningCode::kUnpaddedQpPaced : WarningCode::kUnpaddedQp;
  if (!FirstTime(code)) return;
  char qpn[16];
  std::snprintf(qpn, sizeof qpn, "0x%06x", q.qpn);
  Warn(code, {QpTypeName(q.type), qpn, q.ctx->device});
}

}  // namespace

void AttachLink(QpState* q) {
  Engine& e = E();
  if (!e.emulating) return;
  // Its traffic never crosses the link: not paced, not padded.
  if (q->loopback.load(std::memory_order_relaxed)) {
    q->link.store(nullptr, std::memory_order_release);
    q->ingress_peer.store(nullptr, std::memory_order_release);
    q->ingress_own.store(nullptr, std::memory_order_release);
    q->flow.Release();
    return;
  }
  PortLink* link;
  {
    std::lock_guard<std::mutex> lock(q->ctx->mu);
    link = GetLinkLocked(q->ctx, q->port,
                         q->link_class.load(std::memory_order_relaxed));
  }
  bool pads;
  bool unpadded;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    pads = e.bw.pad() && link->pad_ratio > 1 && q->have_av;
    unpadded = e.bw.pad() && link->pad_ratio > 1 && !q->have_av;
    if (pads) {
      q->planner = emulate::PadPlanner(link->pad_ratio,
                                       e.settings.engine.pad_threshold_bytes,
                                       link->mtu_bytes);
    }
  }
  if (pads) PreparePadding(q, link);
  const bool pace_instead = unpadded && link->pacer_out != nullptr;
  q->paced.store(e.bw.pace() || pace_instead, std::memory_order_relaxed);
  if (unpadded) WarnUnpadded(*q, pace_instead);
  q->link.store(link, std::memory_order_release);
  AttachIngress(q);
}

}  // namespace verbsemu::shim::internal
