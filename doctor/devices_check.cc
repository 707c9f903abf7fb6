#include "doctor/devices_check.h"

#include "doctor/provider_limits.h"

namespace verbsemu::doctor {
namespace {

std::string Trim(std::string s) {
  const size_t end = s.find_last_not_of(" \t\r\n");
  s.erase(end == std::string::npos ? 0 : end + 1);
  const size_t begin = s.find_first_not_of(" \t");
  return begin == std::string::npos ? "" : s.substr(begin);
}

std::string ReadSmall(const SystemView& view, const std::string& path) {
  return Trim(view.ReadFile(path, 4096).value_or(""));
}

std::string Basename(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The kernel driver: the soft devices (rxe, siw, the iWARP one) have a
// `parent` file naming their netdev, which hardware devices do not; those
// have device/driver.
std::string Driver(const SystemView& view, const std::string& dir, bool iwarp) {
  if (view.ReadFile(dir + "/parent", 4096)) return iwarp ? "siw" : "rxe";
  if (auto link = view.ReadLink(dir + "/device/driver")) {
    return Basename(*link);
  }
  return "";
}

PortInfo ReadPort(const SystemView& view, const std::string& dir,
                  const std::string& n) {
  const std::string p = dir + "/ports/" + n + "/";
  PortInfo port{n, ReadSmall(view, p + "link_layer"),
                ReadSmall(view, p + "rate"), ReadSmall(view, p + "state")};
  // "4: ACTIVE" -> "ACTIVE"
  if (const size_t colon = port.state.find(": "); colon != std::string::npos) {
    port.state = port.state.substr(colon + 2);
  }
  return port;
}

std::string DescribeDevice(const DeviceInfo& d) {
  std::string line = "device " + d.name + ": driver " +
                     (d.driver.empty() ? "unknown" : d.driver) + ", provider " +
                     (d.provider.empty() ? "unknown" : d.provider) +
                     ", node type " +
                     (d.node_type.empty() ? "unknown" : d.node_type) +
                     (d.iwarp() ? " (iWARP)" : "");
  for (const PortInfo& p : d.ports) {
    line += "; port " + p.number + ": " +
            (p.link_layer.empty() ? "link layer unknown" : p.link_layer) +
            ", " + (p.rate.empty() ? "rate unknown" : p.rate) +
            (p.state.empty() ? "" : ", " + p.state);
  }
  return line;
}

}  // namespace

std::vector<DeviceInfo> ListDevices(const SystemView& view) {
  std::vector<DeviceInfo> out;
  for (const std::string& name : view.ListDir(kInfinibandClass)) {
    const std::string dir = std::string(kInfinibandClass) + "/" + name;
    DeviceInfo d;
    d.name = name;
    d.node_type = ReadSmall(view, dir + "/node_type");
    // "4: RNIC" -> "RNIC"
    if (const size_t colon = d.node_type.find(": ");
        colon != std::string::npos) {
      d.node_type = d.node_type.substr(colon + 2);
    }
    d.driver = Driver(view, dir, d.iwarp());
    d.provider = ProviderForDriver(d.driver);
    for (const std::string& n : view.ListDir(dir + "/ports")) {
      d.ports.push_back(ReadPort(view, dir, n));
    }
    out.push_back(std::move(d));
  }
  return out;
}

Findings CheckDevices(const std::vector<DeviceInfo>& devices) {
  Findings out;
  if (devices.empty()) {
    out.push_back(
        Finding::Problem("no RDMA device in " + std::string(kInfinibandClass) +
                         ": nothing to emulate here (is the driver loaded?)"));
    return out;
  }
  for (const DeviceInfo& d : devices) {
    out.push_back(Finding::Info(DescribeDevice(d)));
    const std::string tag =
        d.name + " (" + (d.provider.empty() ? "?" : d.provider) + "): ";
    if (d.provider.empty()) {
      out.push_back(Finding::Info(
          tag +
          "a driver verbsemu has no notes for: not tested; check the "
          "self-test and the report"));
    }
    for (std::string_view l : ProviderLimits(d.provider)) {
      out.push_back(Finding::Info(tag + std::string(l)));
    }
    if (d.iwarp()) {
      for (std::string_view l : ProviderLimits("iWARP")) {
        out.push_back(Finding::Info(tag + std::string(l)));
      }
    }
  }
  return out;
}

}  // namespace verbsemu::doctor
