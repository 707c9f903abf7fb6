// A port's real link rate, and where it came from: one ordered table of
// sources (user setting, netdev speed, the kernel's sysfs rate, the port's
// speed and width codes), the first that knows wins.
#ifndef VERBSEMU_SHIM_INTERNAL_PORT_RATE_H_
#define VERBSEMU_SHIM_INTERNAL_PORT_RATE_H_

#include <cstdint>
#include <string>

#include "shim/internal/port_traffic.h"

namespace verbsemu::shim::internal {

// What ibv_query_port said of the port (zeros: it could not be asked).
struct PortFacts {
  uint8_t link_layer = 0;  // IBV_LINK_LAYER_*
  uint8_t active_speed = 0;
  uint8_t active_width = 0;
};

struct PortRate {
  double bits_per_s = 0;  // 0: unknown
  // Where the rate came from, for the report ("netdev eth2 speed 10000
  // Mb/s"); when unknown, why and what to do.
  std::string source;
};

// The rate of DEVICE's `port`: `user_bits_per_s` (--link-bandwidth) when
// given, else the first source of the port's kind that knows it, reading
// `paths`' sysfs trees.
PortRate DecidePortRate(const TrafficPaths& paths, const std::string& device,
                        int port, const PortFacts& facts,
                        double user_bits_per_s);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PORT_RATE_H_
