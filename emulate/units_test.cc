#include "emulate/units.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::units {
namespace {

TEST(ParseDurationNsTest, Accepts) {
  EXPECT_DOUBLE_EQ(*ParseDurationNs("2us"), 2000);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("3\xc2\xb5s"), 3000);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("1500ns"), 1500);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("0.5ms"), 500000);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("0"), 0);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("1.25us"), 1250);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("3s"), 3e9);
}

TEST(ParseDurationNsTest, RejectsWithAReason) {
  for (const char* bad : {"", "abc", "2", "-2us", "2 us", "2uss", "us", "1e3ns",
                          "2s5", "..1us", " 2us"}) {
    std::string why;
    EXPECT_FALSE(ParseDurationNs(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

// Found by units_fuzz: a finite number whose unit scales it past the double
// range must be refused, not read as infinity.
TEST(ParseDurationNsTest, RefusesWhatOverflowsWithItsUnit) {
  const std::string huge = "1" + std::string(308, '7') + "s";  // 1.8e308 s
  std::string why;
  EXPECT_FALSE(ParseDurationNs(huge, &why).has_value());
  EXPECT_EQ(why, "too large a number");
  EXPECT_FALSE(
      ParseBitsPerS("1" + std::string(308, '7') + "Tbit/s").has_value());
}

TEST(ParseBytesTest, BinaryMultiples) {
  EXPECT_EQ(*ParseBytes("65536"), 65536u);
  EXPECT_EQ(*ParseBytes("64K"), 65536u);
  EXPECT_EQ(*ParseBytes("64KiB"), 65536u);
  EXPECT_EQ(*ParseBytes("1M"), 1048576u);
  EXPECT_EQ(*ParseBytes("1MiB"), 1048576u);
  EXPECT_EQ(*ParseBytes("2G"), 2147483648u);
  EXPECT_EQ(*ParseBytes("512B"), 512u);
  EXPECT_EQ(*ParseBytes("0.5K"), 512u);
  EXPECT_EQ(*ParseBytes("0"), 0u);
}

TEST(ParseBytesTest, RefusesAmbiguousAndFractions) {
  std::string why;
  EXPECT_FALSE(ParseBytes("64KB", &why).has_value());
  EXPECT_NE(why.find("ambiguous"), std::string::npos) << why;
  EXPECT_NE(why.find("KiB"), std::string::npos) << why;
  for (const char* bad : {"1MB", "1GB", "64Kb", "1.5", "", "-1", "0.3K", "k"}) {
    EXPECT_FALSE(ParseBytes(bad).has_value()) << bad;
  }
}

TEST(ParseBitsPerSTest, DecimalBitsBinaryBytes) {
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("25Gbit/s"), 25e9);
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("25Gb/s"), 25e9);
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("100Mbps"), 1e8);
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("1GiB/s"), 8.0 * 1073741824);
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("10MiB/s"), 80.0 * 1048576);
  EXPECT_DOUBLE_EQ(*ParseBitsPerS("1000B/s"), 8000);
}

TEST(ParseBitsPerSTest, RefusesAmbiguousZeroAndBare) {
  std::string why;
  EXPECT_FALSE(ParseBitsPerS("3GB/s", &why).has_value());
  EXPECT_NE(why.find("GiB/s"), std::string::npos) << why;
  EXPECT_NE(why.find("Gbit/s"), std::string::npos) << why;
  for (const char* bad : {"", "0Gbit/s", "25", "25Gbit", "fast", "MB/s",
                          "0.5bit/s", "1001Tbit/s"}) {
    EXPECT_FALSE(ParseBitsPerS(bad).has_value()) << bad;
  }
}

TEST(ParsePercentTest, RangeIsOpenAtZero) {
  EXPECT_DOUBLE_EQ(*ParsePercent("40%"), 0.4);
  EXPECT_DOUBLE_EQ(*ParsePercent("100%"), 1.0);
  EXPECT_DOUBLE_EQ(*ParsePercent("12.5%"), 0.125);
  for (const char* bad : {"0%", "101%", "-5%", "40", "%", "40 %"}) {
    EXPECT_FALSE(ParsePercent(bad).has_value()) << bad;
  }
}

TEST(FormatTest, ShortForms) {
  EXPECT_EQ(FormatNs(2000), "2us");
  EXPECT_EQ(FormatNs(1.5e6), "1.5ms");
  EXPECT_EQ(FormatNs(40), "40ns");
  EXPECT_EQ(FormatBitsPerS(25e9), "25Gbit/s");
  EXPECT_EQ(FormatBitsPerS(8e8), "800Mbit/s");
  EXPECT_EQ(FormatBitsPerS(12345678), "12.3457Mbit/s");
  EXPECT_EQ(FormatNs(0.25), "0.25ns");
}

// Found by units_fuzz: %g printed 999999.919bit/s as "1e+06bit/s", which no
// parser reads. Rounding picks the scale, and nothing prints an exponent.
TEST(FormatTest, RoundingPicksTheScaleAndNeverPrintsAnExponent) {
  EXPECT_EQ(FormatBitsPerS(999999.919), "1Mbit/s");
  EXPECT_EQ(FormatBitsPerS(999999.4), "999999bit/s");
  EXPECT_EQ(FormatNs(999999.9), "1ms");
  EXPECT_EQ(FormatNs(1e12), "1000000ms");
  EXPECT_TRUE(ParseBitsPerS(FormatBitsPerS(999999.919)));
}

TEST(FormatTest, RoundTrips) {
  for (double ns : {1.0, 999.0, 1000.0, 2500.0, 1e6, 3.5e8}) {
    EXPECT_DOUBLE_EQ(*ParseDurationNs(FormatNs(ns)), ns) << ns;
  }
  for (double bps : {1.0, 1e3, 8e8, 25e9, 1.5e12, 1e15}) {
    EXPECT_DOUBLE_EQ(*ParseBitsPerS(FormatBitsPerS(bps)), bps) << bps;
  }
}

}  // namespace
}  // namespace verbsemu::units
