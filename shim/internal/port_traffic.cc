#include "shim/internal/port_traffic.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace verbsemu::shim::internal {
namespace {

using ull = unsigned long long;

struct CounterFiles {
  const char* sent;
  const char* received;
};
// In order of preference, relative to DEVICE/ports/PORT/; rxe's hw_counters
// were per device before Linux 5.17 (../../ is the device's directory).
// EFA has no counters/ directory: its port's hw_counters name them tx_pkts
// and rx_pkts.
constexpr CounterFiles kCounterFiles[] = {
    {"counters/port_xmit_packets", "counters/port_rcv_packets"},
    {"hw_counters/sent_pkts", "hw_counters/rcvd_pkts"},
    {"../../hw_counters/sent_pkts", "../../hw_counters/rcvd_pkts"},
    {"hw_counters/tx_pkts", "hw_counters/rx_pkts"},
};

std::optional<uint64_t> ReadCounter(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[32];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(buf, &end, 10);
  if (end == buf || errno != 0 || (*end != '\n' && *end != '\0')) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<DevicePackets> ReadDevicePackets(const std::string& sysfs_root,
                                               const std::string& device,
                                               int port) {
  const std::string dir =
      sysfs_root + "/" + device + "/ports/" + std::to_string(port) + "/";
  for (const CounterFiles& f : kCounterFiles) {
    const auto sent = ReadCounter(dir + f.sent);
    const auto received = ReadCounter(dir + f.received);
    if (sent && received) return DevicePackets{*sent, *received};
  }
  return std::nullopt;
}

std::vector<int> DevicePorts(const std::string& sysfs_root,
                             const std::string& device) {
  std::vector<int> ports;
  const std::string dir = sysfs_root + "/" + device + "/ports";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return ports;
  while (const dirent* ent = readdir(d)) {
    char* end = nullptr;
    const long p = std::strtol(ent->d_name, &end, 10);
    if (end != ent->d_name && *end == '\0' && p > 0 && p < 256) {
      ports.push_back(static_cast<int>(p));
    }
  }
  closedir(d);
  std::sort(ports.begin(), ports.end());
  return ports;
}

TrafficVerdict Judge(const TrafficWindow& w) {
  TrafficVerdict v;
  if (!w.device_counters) return v;
  const uint64_t explained = w.shim_posted + w.device.received;
  if (w.device.sent <= explained) return v;
  v.unexplained = w.device.sent - explained;
  // 2% of what the port sent, and never less than the floor.
  const uint64_t tolerated =
      std::max<uint64_t>(kUnexplainedFloor, w.device.sent / 50);
  if (v.unexplained <= tolerated) return v;
  if (w.serves_reads) {
    v.maybe_read_responses = true;
  } else {
    v.bypass = true;
  }
  return v;
}

PortTraffic::PortTraffic(const TrafficPaths& paths, std::string device,
                         int port, SegmentPtr shared)
    : paths_(paths),
      device_(std::move(device)),
      port_(port),
      shared_(std::move(shared)) {
  Restart();
}

std::unique_ptr<PortTraffic> PortTraffic::Start(const TrafficPaths& paths,
                                                const std::string& device,
                                                int port, std::string* why) {
  SegmentPtr shared = MapShared<SharedPortCounts>(
      paths.shm_dir, SegmentName(paths, device, port), why);
  if (shared == nullptr) return nullptr;
  return std::make_unique<PortTraffic>(paths, device, port, std::move(shared));
}

void PortTraffic::Restart() {
  start_ = ReadDevicePackets(paths_.sysfs_root, device_, port_);
  start_posted_ = shared_->posted_packets.load(std::memory_order_acquire);
  start_read_ever_ = shared_->read_qps_ever.load(std::memory_order_relaxed);
}

void PortTraffic::ServeReads(bool on) {
  if (on) {
    shared_->read_qps_ever.fetch_add(1, std::memory_order_relaxed);
    own_read_qps_.fetch_add(1, std::memory_order_relaxed);
  } else {
    own_read_qps_.fetch_sub(1, std::memory_order_relaxed);
  }
}

TrafficWindow PortTraffic::Window() const {
  TrafficWindow w;
  // The shim's sum first: what it misses is then at most what was posted
  // after, which the device's later reading includes as well.
  const uint64_t posted =
      shared_->posted_packets.load(std::memory_order_acquire);
  const auto now = ReadDevicePackets(paths_.sysfs_root, device_, port_);
  w.shim_posted = posted - start_posted_;
  w.serves_reads = own_read_qps_.load(std::memory_order_relaxed) > 0 ||
                   shared_->read_qps_ever.load(std::memory_order_relaxed) !=
                       start_read_ever_;
  if (start_ && now && now->sent >= start_->sent &&
      now->received >= start_->received) {
    w.device_counters = true;
    w.device = {now->sent - start_->sent, now->received - start_->received};
  }
  return w;
}

std::string PortTraffic::ReportLine() const {
  const TrafficWindow w = Window();
  char line[512];
  if (!w.device_counters) {
    std::snprintf(line, sizeof line,
                  "device %s port %d: no device packet counters (neither "
                  "counters/ nor hw_counters/): bypass not checked\n",
                  device_.c_str(), port_);
    return line;
  }
  const TrafficVerdict v = Judge(w);
  std::snprintf(line, sizeof line,
                "device %s port %d: the device sent %llu packets and received "
                "%llu while this process ran; shim processes of this user "
                "posted at most %llu%s\n",
                device_.c_str(), port_, static_cast<ull>(w.device.sent),
                static_cast<ull>(w.device.received),
                static_cast<ull>(w.shim_posted),
                v.maybe_read_responses
                    ? "; the rest may be responses to remote READs (a QP "
                      "here serves them), so bypass is not judged"
                    : "");
  if (!v.bypass) return line;
  // A note, never a warning: other processes, other users, IPoIB and kernel
  // storage share the port, and symmetric traffic hides a bypass entirely.
  // This process's own QPs are judged by the kernel's list (hidden_qps.h).
  char note[512];
  std::snprintf(note, sizeof note,
                "device %s port %d: %llu packets sent that no shim process "
                "posted: other processes' or the kernel's traffic on this "
                "port, or traffic behind the shim (the kernel QP check below "
                "judges this process's own QPs)\n",
                device_.c_str(), port_, static_cast<ull>(v.unexplained));
  return std::string(line) + note;
}

}  // namespace verbsemu::shim::internal
