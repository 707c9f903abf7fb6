// The engine's side of the bypass check (port_traffic.h): a PortTraffic per
// port of every emulated device while a report is asked for, each QP's
// request packets published to its port, QPs that may serve READs counted,
// and the report's lines.
#ifndef VERBSEMU_SHIM_INTERNAL_DEVICE_TRAFFIC_H_
#define VERBSEMU_SHIM_INTERNAL_DEVICE_TRAFFIC_H_

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "shim/internal/port_traffic.h"
#include "shim/internal/segment_key.h"

namespace verbsemu::shim::internal {

// The bypass check's part of the shim's state (Engine::bypass): one window
// per device port, kept for the process's life (QPs publish into their
// shared segments).
struct BypassCheck {
  TrafficPaths paths;  // tests: their own
  std::vector<std::unique_ptr<PortTraffic>> windows;
};

struct ContextState;
struct QpState;

// Starts the windows of the context's device ports. Caller holds E().mu.
void StartDeviceTrafficLocked(const ContextState& c);
// After ibv_modify_qp: the path MTU, the port to publish to, and whether
// the QP may answer remote READs.
void OnQpTrafficModified(QpState* q, const ibv_qp_attr& attr, int attr_mask);
// The QP is gone: it serves no more READs.
void OnQpTrafficRetired(QpState* q);
// One line per port of `device` (two when packets went out that no shim
// process posted). Caller holds E().mu.
std::string DeviceTrafficLinesLocked(const std::string& device);
// A forked child's windows start afresh. Caller holds E().mu.
void RestartDeviceTrafficLocked();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_DEVICE_TRAFFIC_H_
