#include "emulate/link_rate.h"

#include <gtest/gtest.h>

namespace verbsemu::emulate {
namespace {

TEST(LinkRateTest, KnownPorts) {
  EXPECT_DOUBLE_EQ(PortDataBitsPerS(32, 2), 100e9);   // EDR 4x
  EXPECT_DOUBLE_EQ(PortDataBitsPerS(4, 2), 32e9);     // QDR 4x
  EXPECT_DOUBLE_EQ(PortDataBitsPerS(64, 16), 100e9);  // HDR 2x
  EXPECT_DOUBLE_EQ(PortDataBitsPerS(1, 1), 2e9);      // SDR 1x
}

TEST(LinkRateTest, UnknownCodesAreZero) {
  EXPECT_EQ(PortDataBitsPerS(3, 2), 0);
  EXPECT_EQ(PortDataBitsPerS(32, 3), 0);
}

}  // namespace
}  // namespace verbsemu::emulate
