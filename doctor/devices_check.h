// Check 2: the RDMA devices in /sys/class/infiniband, their kernel drivers,
// ports, and what verbsemu can do on each kind.
#ifndef VERBSEMU_DOCTOR_DEVICES_CHECK_H_
#define VERBSEMU_DOCTOR_DEVICES_CHECK_H_

#include <string>
#include <vector>

#include "doctor/finding.h"
#include "doctor/system_view.h"

namespace verbsemu::doctor {

struct PortInfo {
  std::string number;      // "1"
  std::string link_layer;  // "Ethernet", "InfiniBand"; "" when unknown
  std::string rate;        // "100 Gb/sec (4X EDR)"
  std::string state;       // "ACTIVE"
};

struct DeviceInfo {
  std::string name;       // "mlx5_0"
  std::string driver;     // kernel driver, "mlx5_core"; "" when unknown
  std::string provider;   // rdma-core provider, "mlx5"; "" when unknown
  std::string node_type;  // "CA", "RNIC" (iWARP), ...
  std::vector<PortInfo> ports;
  bool iwarp() const { return node_type == "RNIC"; }
};

inline constexpr char kInfinibandClass[] = "/sys/class/infiniband";

// Every device, sorted by name.
std::vector<DeviceInfo> ListDevices(const SystemView& view);

// One info line per device and one per known limit of its kind; a problem
// when there is none.
Findings CheckDevices(const std::vector<DeviceInfo>& devices);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_DEVICES_CHECK_H_
