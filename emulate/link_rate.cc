#include "emulate/link_rate.h"

#include <array>
#include <cstddef>

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

template <size_t N>
double Lookup(const std::array<Code, N>& table, uint8_t code) {
  for (const Code& c : table) {
    if (c.code == code) return c.value;
  }
  return 0;
}

}  // namespace

double PortDataBitsPerS(uint8_t active_speed, uint8_t active_width) {
  return Lookup(kLanes, active_width) * Lookup(kLaneGbits, active_speed) * 1e9;
}

}  // namespace verbsemu::emulate
