#include "emulate/link_rate.h"

namespace verbsemu::emulate {

double PortDataBitsPerS(uint8_t active_speed, uint8_t active_width) {
  double lanes = 0;
  switch (active_width) {
    case 1:
      lanes = 1;
      break;
    case 2:
      lanes = 4;
      break;
    case 4:
      lanes = 8;
      break;
    case 8:
      lanes = 12;
      break;
    case 16:
      lanes = 2;
      break;
    default:
      return 0;
  }
  double per_lane = 0;  // Gbit/s of data per lane
  switch (active_speed) {
    case 1:
      per_lane = 2.0;
      break;  // SDR, 8b/10b
    case 2:
      per_lane = 4.0;
      break;  // DDR
    case 4:
      per_lane = 8.0;
      break;  // QDR
    case 8:
      per_lane = 10.0;
      break;  // FDR10, 64b/66b
    case 16:
      per_lane = 13.64;
      break;  // FDR
    case 32:
      per_lane = 25.0;
      break;  // EDR
    case 64:
      per_lane = 50.0;
      break;  // HDR
    case 128:
      per_lane = 100.0;
      break;  // NDR
    default:
      return 0;
  }
  return lanes * per_lane * 1e9;
}

}  // namespace verbsemu::emulate
