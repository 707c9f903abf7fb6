#include "shim/internal/segment_key.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

bool AllHex(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

// DOMAIN:BUS:DEV.FN, as sysfs names a PCI function (0000:3b:00.1; a VMD
// domain has five hex digits).
bool IsPciAddress(std::string_view s) {
  const size_t c1 = s.find(':');
  const size_t c2 = s.find(':', c1 == std::string_view::npos ? c1 : c1 + 1);
  const size_t dot = s.rfind('.');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos ||
      dot == std::string_view::npos || dot < c2) {
    return false;
  }
  return AllHex(s.substr(0, c1)) && c2 - c1 - 1 == 2 &&
         AllHex(s.substr(c1 + 1, 2)) && dot - c2 - 1 == 2 &&
         AllHex(s.substr(c2 + 1, 2)) && dot + 2 == s.size() &&
         AllHex(s.substr(dot + 1));
}

// The PCI function `link` resolves to or sits under (an auxiliary device
// such as mlx5_core.rdma.0 sits under its PCI function): that directory,
// or "" when there is none.
fs::path NearestPciFunction(const fs::path& link) {
  std::error_code ec;
  fs::path p = fs::canonical(link, ec);
  if (ec) return {};
  for (; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (IsPciAddress(p.filename().string())) return p;
  }
  return {};
}

// The first line of a small sysfs file, or "".
std::string FirstLine(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[64];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) return "";
  std::string line(buf, static_cast<size_t>(n));
  const size_t end = line.find_first_of("\r\n");
  return end == std::string::npos ? line : line.substr(0, end);
}

// -uUID[-jJOB]
std::string Scope(const TrafficPaths& paths) {
  std::string out = "-u" + std::to_string(getuid());
  if (!paths.job.empty()) out += "-j" + SegmentNamePart(paths.job);
  return out;
}

// -uUID[-jJOB]-PORTKEY-pPORT
std::string ScopeAndPort(const TrafficPaths& paths, const std::string& device,
                         int port) {
  return Scope(paths) + "-" + PhysicalPortKey(paths.sysfs_root, device) + "-p" +
         std::to_string(port);
}

}  // namespace

std::string PhysicalPortKey(const std::string& sysfs_root,
                            const std::string& device) {
  const std::string dir = sysfs_root + "/" + device;
  fs::path pci = NearestPciFunction(dir + "/device");
  if (!pci.empty()) {
    // A VF's physfn links to its PF: every VF and the PF share one port.
    const fs::path pf = NearestPciFunction(pci / "physfn");
    if (!pf.empty()) pci = pf;
    return "pci-" + pci.filename().string();
  }
  const std::string netdev = FirstLine(dir + "/parent");
  if (!netdev.empty()) return "net-" + SegmentNamePart(netdev);
  return device;
}

std::string SegmentNamePart(const std::string& text) {
  std::string out = text.substr(0, 96);
  for (char& c : out) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                      c == '.' || c == '_' || c == '-' || c == ':';
    if (!keep) c = '_';
  }
  return out;
}

std::string LinkSegmentName(const TrafficPaths& paths,
                            const std::string& device, int port,
                            const std::string& link_class) {
  return paths.shm_prefix + "-link-v2" + ScopeAndPort(paths, device, port) +
         (link_class.empty() ? "" : "-c" + link_class);
}

std::string IngressSegmentName(const TrafficPaths& paths,
                               const std::string& address) {
  return paths.shm_prefix + "-in-v2" + Scope(paths) + "-" +
         SegmentNamePart(address);
}

std::string FlowsSegmentName(const TrafficPaths& paths) {
  return paths.shm_prefix + "-flows-v1" + Scope(paths);
}

std::string SegmentName(const TrafficPaths& paths, const std::string& device,
                        int port) {
  return paths.shm_prefix + "-v2" + ScopeAndPort(paths, device, port);
}

}  // namespace verbsemu::shim::internal
