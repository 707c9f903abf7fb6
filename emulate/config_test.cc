#include "emulate/config.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::emulate {
namespace {

TEST(ParseBandwidthTest, Absolute) {
  auto bw = ParseBandwidth("25Gbit/s");
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->kind, BandwidthTarget::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ(bw->bits_per_s, 25e9);
  EXPECT_DOUBLE_EQ(ParseBandwidth("3GiB/s")->bits_per_s, 24.0 * 1073741824);
  EXPECT_DOUBLE_EQ(ParseBandwidth("100Mbps")->bits_per_s, 1e8);
  EXPECT_DOUBLE_EQ(bw->TargetBitsPerS(100e9), 25e9);
}

TEST(ParseBandwidthTest, Fraction) {
  auto bw = ParseBandwidth("40%");
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->kind, BandwidthTarget::Kind::kFraction);
  EXPECT_DOUBLE_EQ(bw->TargetBitsPerS(100e9), 40e9);
  auto full = ParseBandwidth("100%");
  ASSERT_TRUE(full);
  EXPECT_FALSE(full->enabled());
}

TEST(ParseBandwidthTest, Rejects) {
  for (const char* bad : {"", "0%", "101%", "-5%", "40", "25Gbit", "0Gbit/s",
                          "fast", "%", "3GB/s"}) {
    std::string why;
    EXPECT_FALSE(ParseBandwidth(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(ParseBwModeTest, PadAndPace) {
  EXPECT_EQ(*base::ParseEnum<BwMode>("pad"), BwMode::kPad);
  EXPECT_EQ(*base::ParseEnum<BwMode>("pace"), BwMode::kPace);
  EXPECT_FALSE(base::ParseEnum<BwMode>("PAD").has_value());
  EXPECT_EQ(base::kEnumBar<BwMode>, "pad|pace");
}

TEST(ConfigTest, ModesFollowTheBandwidthTarget) {
  Config c;
  EXPECT_FALSE(c.emulating());
  EXPECT_FALSE(c.pacing());
  EXPECT_FALSE(c.padding());
  c.bandwidth = *ParseBandwidth("40%");
  EXPECT_TRUE(c.emulating());
  EXPECT_TRUE(c.padding());
  c.bw_mode = BwMode::kPace;
  EXPECT_TRUE(c.pacing());
  EXPECT_FALSE(c.padding());
  Config latency_only;
  latency_only.latency_ns = 1;
  EXPECT_TRUE(latency_only.emulating());
  EXPECT_FALSE(latency_only.pacing());
}

TEST(FormatTest, RoundTrips) {
  EXPECT_EQ(FormatBandwidth(*ParseBandwidth("40%")), "40%");
  EXPECT_EQ(FormatBandwidth(*ParseBandwidth("25Gbit/s")), "25Gbit/s");
  EXPECT_EQ(FormatBandwidth(BandwidthTarget{}), "native");
}

}  // namespace
}  // namespace verbsemu::emulate
