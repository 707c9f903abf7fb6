// What the node-wide shared segments (a port's virtual link, its posted
// packet counts) are named after, so that exactly the processes that share
// a physical port and a job share them:
//
//   PREFIX-link-v2-uUID[-jJOB]-PORTKEY-pPORT[-cCLASS]   (port_link.h)
//   PREFIX-v2-uUID[-jJOB]-PORTKEY-pPORT                  (port_traffic.h)
//   PREFIX-in-v2-uUID[-jJOB]-ADDRESS                     (ingress_link.h)
//
// The layout's version is in the name, so a future layout never reads this
// one. With no job and a device sysfs cannot place, PORTKEY is the device
// name: the names earlier versions used.
#ifndef VERBSEMU_SHIM_INTERNAL_SEGMENT_KEY_H_
#define VERBSEMU_SHIM_INTERNAL_SEGMENT_KEY_H_

#include <string>

namespace verbsemu::shim::internal {

// Where the device counters and the shared segments live, and whose they
// are (tests: a directory and a name prefix of their own).
struct TrafficPaths {
  std::string sysfs_root = "/sys/class/infiniband";
  std::string net_root = "/sys/class/net";  // a RoCE port's netdev
  std::string shm_prefix = "/verbsemu";
  // "": shm_open objects (/dev/shm); else files in this directory
  // (VERBSEMU_SHM_DIR), so pods with a private /dev/shm can share one.
  std::string shm_dir;
  // "": segments are per user; else per user and job (VERBSEMU_JOB or the
  // launcher's job id).
  std::string job;
};

// The physical port behind `device`, as the first of these that sysfs
// (under `sysfs_root`, /sys/class/infiniband) tells:
//   - "pci-ADDR" with the PF's PCI address, for an SR-IOV VF
//     (DEVICE/device/physfn), so every VF of a PF shares the PF's key;
//   - "pci-ADDR" with the device's own PCI function (the nearest PCI
//     address in the realpath of DEVICE/device);
//   - "net-NETDEV" for a soft device (rxe, siw) with a DEVICE/parent file;
//   - the device name.
// The caller adds the port number: a PCI function with two ports
// (ConnectX-3) keys them apart by it.
std::string PhysicalPortKey(const std::string& sysfs_root,
                            const std::string& device);

// `text` fit for a segment name: letters, digits, '.', '_', '-' and ':'
// stay, anything else becomes '_', at most 96 characters.
std::string SegmentNamePart(const std::string& text);

// PREFIX-link-v2-uUID[-jJOB]-PORTKEY-pPORT, and -cCLASS after it for a
// VERBSEMU_TOPOLOGY class's own link on the port.
std::string LinkSegmentName(const TrafficPaths& paths,
                            const std::string& device, int port,
                            const std::string& link_class = "");

// A port's ingress (VERBSEMU_FABRIC=links, ingress_link.h), named after the
// port's address as its senders know it: PREFIX-in-v2-uUID[-jJOB]-ADDRESS.
std::string IngressSegmentName(const TrafficPaths& paths,
                               const std::string& address);

// The node's flows (VERBSEMU_FABRIC=penalty, fabric_flows.h):
// PREFIX-flows-v1-uUID[-jJOB].
std::string FlowsSegmentName(const TrafficPaths& paths);

// The bypass check's packet counts: PREFIX-v2-uUID[-jJOB]-PORTKEY-pPORT.
std::string SegmentName(const TrafficPaths& paths, const std::string& device,
                        int port);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_SEGMENT_KEY_H_
