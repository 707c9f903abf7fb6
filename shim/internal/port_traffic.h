// What a device port carried against what the shim saw posted: the report
// shows it beside the shim's counts, and counts what no shim process
// posted. That count is a note, never a verdict: a port is shared (other
// processes and users, IPoIB, kernel storage), and symmetric traffic (rings,
// halos, all-to-all) sends what it receives, so a bypass can hide in it.
// The verdict on this process's own QPs is the kernel's list of them
// (hidden_qps.h).
//
// Devices are shared (several ranks per node, other jobs), so the comparison
// is node-wide: every shim process adds the request packets it posted on a
// port to a counter in shared memory (one segment per user, job and
// physical port, named in segment_key.h; lock-free, nothing a crashed
// process could hold), and the report compares the device's own packet
// counters over this process's life with that sum over the same window.
//
// The model, per port over the window:
//   sent     <= requests posted (all processes) + responses
//   responses <= received packets            (an ACK, an atomic's result or a
//                                              one-packet READ response each)
// except READ responses longer than one packet, which only a QP allowed to
// serve remote reads sends. So S - (P + R) > 0 means requests the shim never
// saw, unless a shim QP on the node serves reads. P is an upper bound
// (WRs + bytes / MTU), so the shim's own counting never raises a warning.
#ifndef VERBSEMU_SHIM_INTERNAL_PORT_TRAFFIC_H_
#define VERBSEMU_SHIM_INTERNAL_PORT_TRAFFIC_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shim/internal/segment_key.h"
#include "shim/internal/shm_segment.h"

namespace verbsemu::shim::internal {

// The node-wide shared counts of one (user, job, physical port). Only
// counts that only grow: a process that crashes leaves nothing to undo
// (a count of live READ-serving QPs would stay up after a crash and keep
// every later report from judging).
struct SharedPortCounts {
  static constexpr uint64_t kTag = SegmentTag(2, 2);  // name: -v2-
  std::atomic<uint64_t> tag{0};
  std::atomic<uint64_t> posted_packets{0};  // request packets, upper bound
  std::atomic<uint64_t> read_qps_ever{0};   // QPs allowed to serve READs
};
static_assert(sizeof(SharedPortCounts) == 24,
              "a new layout: change kTag's version and the name's -vN");

struct DevicePackets {
  uint64_t sent = 0;
  uint64_t received = 0;
};

// The device's own packet counters of a port: the IB performance counters
// (counters/port_{xmit,rcv}_packets, mlx5 and most HCAs) or rxe's
// hw_counters/{sent,rcvd}_pkts (per port, or per device on older kernels).
// Empty when the device has none of them.
std::optional<DevicePackets> ReadDevicePackets(const std::string& sysfs_root,
                                               const std::string& device,
                                               int port);
// The port numbers under sysfs_root/DEVICE/ports.
std::vector<int> DevicePorts(const std::string& sysfs_root,
                             const std::string& device);

// Counts over one window, and what they mean.
struct TrafficWindow {
  bool device_counters = false;
  DevicePackets device;      // deltas
  uint64_t shim_posted = 0;  // delta of SharedPortCounts::posted_packets
  // A shim QP may answer READs: this process's own, or one any process
  // of the node set up during the window.
  bool serves_reads = false;
};
struct TrafficVerdict {
  uint64_t unexplained = 0;  // sent - (posted + received), or 0
  bool bypass = false;       // warn: traffic the shim did not see
  bool maybe_read_responses = false;
};
// Small excess is tolerated: retransmissions, CM MADs, and each thread's
// not yet published counts (see kPublishEveryPackets).
constexpr uint64_t kUnexplainedFloor = 4096;
TrafficVerdict Judge(const TrafficWindow& w);

// A mapped SharedPortCounts, unmapped on destruction.
using SegmentPtr = SharedObjectPtr<SharedPortCounts>;

// One port's window, from Start until the report.
class PortTraffic {
 public:
  PortTraffic(const TrafficPaths& paths, std::string device, int port,
              SegmentPtr shared);
  // Maps the shared segment and reads the start values. nullptr (with
  // `why`) when shared memory cannot be set up.
  static std::unique_ptr<PortTraffic> Start(const TrafficPaths& paths,
                                            const std::string& device, int port,
                                            std::string* why);
  const std::string& device() const { return device_; }
  int port() const { return port_; }
  SharedPortCounts* shared() { return shared_.get(); }
  // A QP of this process starts (true) or stops (false) serving READs.
  void ServeReads(bool on);
  // A new window from now (a forked child's statistics start afresh).
  void Restart();
  TrafficWindow Window() const;
  // "device D port P: ..." and, with packets no shim process posted, a
  // second line counting them (a note: port counters are shared).
  std::string ReportLine() const;

 private:
  TrafficPaths paths_;
  std::string device_;
  int port_;
  SegmentPtr shared_;
  std::optional<DevicePackets> start_;
  uint64_t start_posted_ = 0;
  uint64_t start_read_ever_ = 0;
  std::atomic<int64_t> own_read_qps_{0};  // this process's, live
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PORT_TRAFFIC_H_
