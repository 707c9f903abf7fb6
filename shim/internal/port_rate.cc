#include "shim/internal/port_rate.h"

#include <infiniband/verbs.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "emulate/link_rate.h"

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

// How a port's rate can be known. What the kernel says of it, read in its
// source (Linux drivers/infiniband/core/sysfs.c rate_show, core/verbs.c
// ib_port_attr_to_speed_info, hw/mlx5/main.c
// translate_eth_legacy_proto_oper, hw/efa/efa_verbs.c efa_query_port):
// - sysfs ports/N/rate is printed from the same active_speed and
//   active_width that ibv_query_port returns, as their nominal signalling
//   rate. On IB it is right once line coding is taken off (QDR 4X: "40
//   Gb/sec", 32 Gb/s of data). It also covers speeds newer than this
//   libibverbs's codes (XDR is only in active_speed_ex, rdma-core 49 on).
// - On mlx5 Ethernet the kernel translates the Ethernet speed into an IB
//   pair (10GbE: QDR 1X, 40GbE: QDR 4X, 1GbE and 100Mb: SDR 1X), so the
//   rate text reads "10 Gb/sec (1X QDR)": the right number for 10 and 40GbE
//   when taken as is, wrong for 1GbE ("2.5 Gb/sec"); the codes through the
//   IB table read 8 and 32 Gb/s. The port's netdev speed is exact: it goes
//   first on Ethernet.
// - EFA hard-codes EDR 4X ("100 Gb/sec (4X EDR)") whatever the instance's
//   network: neither the text nor the codes mean anything there.
enum class PortKind { kInfiniBand, kEthernet, kEfa };

struct Port {
  const TrafficPaths& paths;
  const std::string& device;
  int port;
  const PortFacts& facts;
  double user_bits_per_s;
  PortKind kind;
  fs::path Dir() const {
    return fs::path(paths.sysfs_root) / device / "ports" / std::to_string(port);
  }
};

// The first line of a sysfs file, without its newline; empty when absent.
std::string FirstLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line;
}

std::optional<PortRate> FromUser(const Port& p) {
  if (p.user_bits_per_s <= 0) return std::nullopt;
  return PortRate{p.user_bits_per_s, "--link-bandwidth"};
}

// A RoCE port's netdev (its default GID's) and that netdev's speed in Mb/s
// (-1, or unreadable, while the link is down).
std::optional<PortRate> FromNetdev(const Port& p) {
  const std::string netdev = FirstLine(p.Dir() / "gid_attrs/ndevs/0");
  if (netdev.empty() || netdev.find('/') != std::string::npos) {
    return std::nullopt;
  }
  const std::string text =
      FirstLine(fs::path(p.paths.net_root) / netdev / "speed");
  char* end = nullptr;
  const long mbits = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || mbits <= 0) return std::nullopt;
  return PortRate{static_cast<double>(mbits) * 1e6,
                  "netdev " + netdev + " speed " + text + " Mb/s"};
}

std::optional<PortRate> FromSysfsRate(const Port& p) {
  const std::string text = FirstLine(p.Dir() / "rate");
  const double bps =
      emulate::SysfsRateDataBitsPerS(text, p.kind == PortKind::kEthernet);
  if (bps <= 0) return std::nullopt;
  return PortRate{bps, "sysfs rate \"" + text + "\""};
}

std::optional<PortRate> FromCodes(const Port& p) {
  const PortFacts& f = p.facts;
  const double bps =
      p.kind == PortKind::kEthernet
          ? emulate::PortNominalBitsPerS(f.active_speed, f.active_width)
          : emulate::PortDataBitsPerS(f.active_speed, f.active_width);
  if (bps <= 0) return std::nullopt;
  return PortRate{bps, "port speed " + std::to_string(f.active_speed) +
                           " width " + std::to_string(f.active_width) +
                           " (ibv_query_port)"};
}

struct Source {
  std::optional<PortRate> (*read)(const Port&);
  bool on_ib, on_ethernet, on_efa;
};
// In order of preference.
constexpr std::array<Source, 4> kSources = {{
    {FromUser, true, true, true},
    {FromNetdev, false, true, true},
    {FromSysfsRate, true, true, false},
    {FromCodes, true, true, false},
}};

PortKind KindOf(const TrafficPaths& paths, const std::string& device, int port,
                const PortFacts& facts) {
  const fs::path dev = fs::path(paths.sysfs_root) / device;
  std::error_code ec;
  const fs::path driver = fs::read_symlink(dev / "device/driver", ec);
  if ((!ec && driver.filename() == "efa") || device.starts_with("efa")) {
    return PortKind::kEfa;
  }
  if (facts.link_layer == IBV_LINK_LAYER_ETHERNET ||
      FirstLine(dev / "ports" / std::to_string(port) / "link_layer") ==
          "Ethernet") {
    return PortKind::kEthernet;
  }
  return PortKind::kInfiniBand;
}

bool Applies(const Source& s, PortKind kind) {
  switch (kind) {
    case PortKind::kInfiniBand:
      return s.on_ib;
    case PortKind::kEthernet:
      return s.on_ethernet;
    case PortKind::kEfa:
      return s.on_efa;
  }
  return false;
}

}  // namespace

PortRate DecidePortRate(const TrafficPaths& paths, const std::string& device,
                        int port, const PortFacts& facts,
                        double user_bits_per_s) {
  const Port p{paths, device,          port,
               facts, user_bits_per_s, KindOf(paths, device, port, facts)};
  for (const Source& s : kSources) {
    if (!Applies(s, p.kind)) continue;
    if (std::optional<PortRate> rate = s.read(p)) return *rate;
  }
  if (p.kind == PortKind::kEfa) {
    return {0,
            "link rate unknown on EFA (its port always reads 100 Gb/s): "
            "give --link-bandwidth"};
  }
  return {0, "the port tells no rate (set VERBSEMU_LINK_BANDWIDTH)"};
}

}  // namespace verbsemu::shim::internal
