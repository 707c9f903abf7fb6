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

TEST(LinkRateTest, NominalRateOfTheCodes) {
  EXPECT_DOUBLE_EQ(PortNominalBitsPerS(4, 1), 10e9);  // 10GbE on mlx5
  EXPECT_DOUBLE_EQ(PortNominalBitsPerS(4, 2), 40e9);  // 40GbE on mlx5
  EXPECT_DOUBLE_EQ(PortNominalBitsPerS(1, 1), 2.5e9);
  EXPECT_EQ(PortNominalBitsPerS(0, 2), 0);
}

TEST(LinkRateTest, SysfsRateTextIsSignallingOnInfiniBand) {
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("100 Gb/sec (4X EDR)\n", false),
                   100e9);
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("40 Gb/sec (4X QDR)", false), 32e9);
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("2.5 Gb/sec (1X SDR)", false), 2e9);
  EXPECT_NEAR(SysfsRateDataBitsPerS("56 Gb/sec (4X FDR)", false), 54.56e9, 1e6);
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("800 Gb/sec (4X XDR)", false), 800e9);
}

TEST(LinkRateTest, SysfsRateTextIsTheEthernetRateOnEthernet) {
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("10 Gb/sec (1X QDR)", true), 10e9);
  EXPECT_DOUBLE_EQ(SysfsRateDataBitsPerS("40 Gb/sec (4X QDR)", true), 40e9);
}

TEST(LinkRateTest, OtherTextIsZero) {
  EXPECT_EQ(SysfsRateDataBitsPerS("", false), 0);
  EXPECT_EQ(SysfsRateDataBitsPerS("fast", false), 0);
  EXPECT_EQ(SysfsRateDataBitsPerS("100 Mb/sec", false), 0);
  EXPECT_EQ(SysfsRateDataBitsPerS("-1 Gb/sec", false), 0);
}

}  // namespace
}  // namespace verbsemu::emulate
