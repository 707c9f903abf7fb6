#include "emulate/link_rate.h"

#include <array>
#include <cstddef>
#include <cstdlib>
#include <string>

namespace verbsemu::emulate {
namespace {

struct Code {
  uint8_t code;
  double value;
};

// ibv_port_attr.active_width codes: lanes.
constexpr std::array<Code, 5> kLanes = {
    {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}}};

// ibv_port_attr.active_speed codes: Gbit/s of data per lane, after line
// coding (8b/10b up to QDR, 64b/66b from FDR10 on).
constexpr std::array<Code, 8> kLaneGbits = {{
    {1, 2.0},     // SDR
    {2, 4.0},     // DDR
    {4, 8.0},     // QDR
    {8, 10.0},    // FDR10
    {16, 13.64},  // FDR
    {32, 25.0},   // EDR
    {64, 50.0},   // HDR
    {128, 100.0}  // NDR
}};

// The same codes' nominal Gbit/s per lane, as the kernel's sysfs rate
// prints them (drivers/infiniband/core/sysfs.c, rate_show).
constexpr std::array<Code, 8> kLaneNominalGbits = {{
    {1, 2.5},     // SDR
    {2, 5.0},     // DDR
    {4, 10.0},    // QDR
    {8, 10.0},    // FDR10
    {16, 14.0},   // FDR
    {32, 25.0},   // EDR
    {64, 50.0},   // HDR
    {128, 100.0}  // NDR
}};

template <size_t N>
double Lookup(const std::array<Code, N>& table, uint8_t code) {
  for (const Code& c : table) {
    if (c.code == code) return c.value;
  }
  return 0;
}

struct SpeedName {
  std::string_view name;
  double data_share;  // of the nominal rate
};
// Names in sysfs rate's parentheses; unnamed or other speeds (EDR, HDR,
// NDR, XDR, FDR10) carry their nominal rate.
constexpr std::array<SpeedName, 4> kCodedSpeeds = {{
    {"SDR", 0.8},
    {"DDR", 0.8},
    {"QDR", 0.8},
    {"FDR", 13.64 / 14.0},
}};

double DataShare(std::string_view text) {
  const size_t open = text.find('(');
  const size_t x = text.find("X ", open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || x == std::string_view::npos) return 1;
  std::string_view name = text.substr(x + 2);
  name = name.substr(0, name.find(')'));
  for (const SpeedName& s : kCodedSpeeds) {
    if (name == s.name) return s.data_share;
  }
  return 1;
}

}  // namespace

double PortDataBitsPerS(uint8_t active_speed, uint8_t active_width) {
  return Lookup(kLanes, active_width) * Lookup(kLaneGbits, active_speed) * 1e9;
}

double PortNominalBitsPerS(uint8_t active_speed, uint8_t active_width) {
  return Lookup(kLanes, active_width) *
         Lookup(kLaneNominalGbits, active_speed) * 1e9;
}

double SysfsRateDataBitsPerS(std::string_view text, bool ethernet) {
  const std::string s(text);
  char* end = nullptr;
  const double gbits = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(gbits > 0) || gbits > 1e6) return 0;
  std::string_view rest(end);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.starts_with("Gb/sec")) return 0;
  return gbits * 1e9 * (ethernet ? 1.0 : DataShare(rest));
}

}  // namespace verbsemu::emulate
