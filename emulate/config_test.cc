#include "emulate/config.h"

#include <gtest/gtest.h>

#include <csignal>
#include <initializer_list>
#include <map>
#include <string>

namespace verbsemu::emulate {
namespace {

TEST(ParseDurationTest, Accepts) {
  EXPECT_DOUBLE_EQ(*ParseDurationNs("2us"), 2000);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("1500ns"), 1500);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("0.5ms"), 500000);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("0"), 0);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("1.25us"), 1250);
  EXPECT_DOUBLE_EQ(*ParseDurationNs("1s"), 1e9);
}

TEST(ParseDurationTest, Rejects) {
  for (const char* bad : {"", "abc", "2", "-2us", "2 us", "2uss", "us", "1e3ns",
                          "2s5", "..1us", "3s"}) {
    EXPECT_FALSE(ParseDurationNs(bad).has_value()) << bad;
  }
}

TEST(ParseBandwidthTest, Absolute) {
  auto bw = ParseBandwidth("25Gbit/s");
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->kind, BandwidthTarget::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ(bw->bits_per_s, 25e9);
  EXPECT_DOUBLE_EQ(ParseBandwidth("3GB/s")->bits_per_s, 24e9);
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
  for (const char* bad :
       {"", "0%", "101%", "-5%", "40", "25Gbit", "0Gbit/s", "fast", "%"}) {
    EXPECT_FALSE(ParseBandwidth(bad).has_value()) << bad;
  }
}

TEST(ParseSizeTest, AcceptsAndRejects) {
  EXPECT_EQ(*ParseSize("65536"), 65536u);
  EXPECT_EQ(*ParseSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseSize("1MiB"), 1048576u);
  EXPECT_FALSE(ParseSize("64Kb").has_value());
  EXPECT_FALSE(ParseSize("1.5").has_value());
  EXPECT_FALSE(ParseSize("").has_value());
}

TEST(ParseBwModeTest, PadAndPace) {
  EXPECT_EQ(*ParseBwMode("pad"), BwMode::kPad);
  EXPECT_EQ(*ParseBwMode("pace"), BwMode::kPace);
  EXPECT_FALSE(ParseBwMode("PAD").has_value());
}

class FakeEnv {
 public:
  FakeEnv(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  const char* operator()(const char* name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : it->second.c_str();
  }

 private:
  std::map<std::string, std::string> vars_;
};

TEST(ConfigFromEnvTest, EmptyEnvironmentMeansNoEmulation) {
  auto r = ConfigFromEnv(FakeEnv({}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.config.emulating());
  EXPECT_EQ(r.config.pad_threshold_bytes, 65536u);
  EXPECT_TRUE(r.config.EmulatesDevice("rxe0"));
}

TEST(ConfigFromEnvTest, ReadsEverything) {
  auto r = ConfigFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "2us"},
                                  {"VERBSEMU_BANDWIDTH", "40%"},
                                  {"VERBSEMU_BW_MODE", "pace"},
                                  {"VERBSEMU_PAD_THRESHOLD", "128KiB"},
                                  {"VERBSEMU_DEVICES", "rxe0, mlx5_1"},
                                  {"VERBSEMU_REPORT", "stderr"},
                                  {"VERBSEMU_REPORT_SIGNAL", "USR2"},
                                  {"VERBSEMU_LINK_BANDWIDTH", "10Gbit/s"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  const Config& c = r.config;
  EXPECT_TRUE(c.emulating());
  EXPECT_DOUBLE_EQ(c.latency_ns, 2000);
  EXPECT_DOUBLE_EQ(c.bandwidth.fraction, 0.4);
  EXPECT_EQ(c.bw_mode, BwMode::kPace);
  EXPECT_EQ(c.pad_threshold_bytes, 131072u);
  EXPECT_TRUE(c.EmulatesDevice("rxe0"));
  EXPECT_TRUE(c.EmulatesDevice("mlx5_1"));
  EXPECT_FALSE(c.EmulatesDevice("rxe1"));
  EXPECT_EQ(c.report, "stderr");
  EXPECT_EQ(c.report_signal, SIGUSR2);
  EXPECT_DOUBLE_EQ(c.link_bits_per_s, 10e9);
}

TEST(ParseReportSignalTest, OnlyTheUserSignals) {
  EXPECT_EQ(ParseReportSignal("USR1"), SIGUSR1);
  EXPECT_EQ(ParseReportSignal("SIGUSR1"), SIGUSR1);
  EXPECT_EQ(ParseReportSignal("USR2"), SIGUSR2);
  EXPECT_EQ(ParseReportSignal("SIGUSR2"), SIGUSR2);
  for (const char* bad : {"", "usr1", "HUP", "SIGTERM", "10", "USR3"}) {
    EXPECT_FALSE(ParseReportSignal(bad).has_value()) << bad;
  }
  auto r = ConfigFromEnv(FakeEnv({{"VERBSEMU_REPORT_SIGNAL", "TERM"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_REPORT_SIGNAL='TERM'"), std::string::npos);
  EXPECT_NE(r.error.find("USR1 or USR2"), std::string::npos);
}

TEST(ConfigFromEnvTest, BadValueNamesVariableAndAcceptedForms) {
  auto r = ConfigFromEnv(FakeEnv({{"VERBSEMU_LATENCY", "2 parsecs"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("VERBSEMU_LATENCY"), std::string::npos);
  EXPECT_NE(r.error.find("2us"), std::string::npos);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
}

TEST(ConfigFromEnvTest, BadModeAndDevices) {
  EXPECT_FALSE(ConfigFromEnv(FakeEnv({{"VERBSEMU_BW_MODE", "squeeze"}})).ok());
  EXPECT_FALSE(
      ConfigFromEnv(FakeEnv({{"VERBSEMU_DEVICES", "rxe0,,rxe1"}})).ok());
  EXPECT_FALSE(ConfigFromEnv(FakeEnv({{"VERBSEMU_PAD_THRESHOLD", "0"}})).ok());
}

TEST(FormatTest, RoundTrips) {
  EXPECT_EQ(FormatNs(2000), "2us");
  EXPECT_EQ(FormatNs(150), "150ns");
  EXPECT_EQ(FormatBandwidth(*ParseBandwidth("40%")), "40%");
  EXPECT_EQ(FormatBandwidth(*ParseBandwidth("25Gbit/s")), "25Gbit/s");
}

}  // namespace
}  // namespace verbsemu::emulate
