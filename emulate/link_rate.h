// Data rate of an InfiniBand/RoCE port from ibv_port_attr's active_speed and
// active_width codes (after line encoding).
#ifndef VERBSEMU_EMULATE_LINK_RATE_H_
#define VERBSEMU_EMULATE_LINK_RATE_H_

#include <cstdint>

namespace verbsemu::emulate {

// Bits per second of payload-carrying capacity; 0 for unknown codes.
double PortDataBitsPerS(uint8_t active_speed, uint8_t active_width);

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_LINK_RATE_H_
