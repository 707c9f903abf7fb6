// Data rate of an InfiniBand/RoCE port: from ibv_port_attr's active_speed
// and active_width codes (after line encoding), or from the kernel's sysfs
// ports/N/rate text.
#ifndef VERBSEMU_EMULATE_LINK_RATE_H_
#define VERBSEMU_EMULATE_LINK_RATE_H_

#include <cstdint>
#include <string_view>

namespace verbsemu::emulate {

// Bits per second of payload-carrying capacity; 0 for unknown codes.
double PortDataBitsPerS(uint8_t active_speed, uint8_t active_width);

// The nominal rate of the codes (sysfs rate's number): what an Ethernet
// port's codes stand for, since the kernel translates an Ethernet speed into
// the IB pair of that nominal rate (10GbE: QDR 1X). 0 for unknown codes.
double PortNominalBitsPerS(uint8_t active_speed, uint8_t active_width);

// Data bits per second of the kernel's sysfs ports/N/rate text, such as
// "100 Gb/sec (4X EDR)" or "2.5 Gb/sec (1X SDR)": its number is the
// signalling rate of speed x width, of which SDR, DDR and QDR carry 8/10
// and FDR 64/66 of 14.0625/14; on Ethernet (`ethernet`) the number is taken
// as it is. 0 when the text is not of that form.
double SysfsRateDataBitsPerS(std::string_view text, bool ethernet);

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_LINK_RATE_H_
