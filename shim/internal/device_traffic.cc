#include "shim/internal/device_traffic.h"

#include <mutex>

#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// Caller holds E().mu.
PortTraffic* FindLocked(const std::string& device, int port) {
  for (auto& t : E().bypass.windows) {
    if (t->device() == device && t->port() == port) return t.get();
  }
  return nullptr;
}

PortTraffic* Find(const std::string& device, int port) {
  std::lock_guard<std::mutex> lock(E().mu);
  return FindLocked(device, port);
}

}  // namespace

void StartDeviceTrafficLocked(const ContextState& c) {
  Engine& e = E();
  if (e.settings.report.empty()) return;
  for (int port : DevicePorts(e.bypass.paths.sysfs_root, c.device)) {
    if (FindLocked(c.device, port) != nullptr) continue;
    std::string why;
    auto t = PortTraffic::Start(e.bypass.paths, c.device, port, &why);
    if (t == nullptr) {
      WarnOnce(WarningCode::kBypassCheckOff, {why});
      continue;
    }
    e.bypass.windows.push_back(std::move(t));
  }
}

void OnQpTrafficModified(QpState* q, const ibv_qp_attr& attr, int attr_mask) {
  if (E().settings.report.empty()) return;
  if ((attr_mask & IBV_QP_PATH_MTU) != 0 && attr.path_mtu >= IBV_MTU_256 &&
      attr.path_mtu <= IBV_MTU_4096) {
    // IBV_MTU_256 is 1: 2^(7 + 1) bytes.
    q->stats.packet_shift.store(static_cast<uint8_t>(7 + attr.path_mtu),
                                std::memory_order_relaxed);
  }
  uint8_t port;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    port = q->port;
  }
  PortTraffic* t = Find(q->ctx->device, port);
  if (t == nullptr) return;
  q->stats.publish_to.store(&t->shared()->posted_packets,
                            std::memory_order_release);
  if ((attr_mask & IBV_QP_ACCESS_FLAGS) == 0) return;
  const bool reads = (attr.qp_access_flags & IBV_ACCESS_REMOTE_READ) != 0;
  std::lock_guard<std::mutex> lock(q->mu);
  if (reads == (q->reads_counted_on != nullptr)) return;
  if (reads) {
    t->ServeReads(true);
    q->reads_counted_on = t;
  } else {
    q->reads_counted_on->ServeReads(false);
    q->reads_counted_on = nullptr;
  }
}

void OnQpTrafficRetired(QpState* q) {
  std::lock_guard<std::mutex> lock(q->mu);
  if (q->reads_counted_on == nullptr) return;
  q->reads_counted_on->ServeReads(false);
  q->reads_counted_on = nullptr;
}

std::string DeviceTrafficLinesLocked(const std::string& device) {
  // The calling thread's own counts are published before the comparison.
  if (tl_cache != nullptr) PublishThreadCache(tl_cache);
  std::string out;
  for (auto& t : E().bypass.windows) {
    if (t->device() != device) continue;
    out += t->ReportLine();
  }
  return out;
}

void RestartDeviceTrafficLocked() {
  for (auto& t : E().bypass.windows) t->Restart();
}

}  // namespace verbsemu::shim::internal
