// Where a port's link rate comes from, over fake sysfs trees: one per kind
// of port the shim meets (mlx5 Ethernet, EFA, an IB speed newer than the
// codes, a rate the user gave).
#include "shim/internal/port_rate.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

constexpr uint8_t kQdr = 4, kEdr = 32, k1x = 1, k4x = 2;

class PortRateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
            ("port-rate-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
    paths_.sysfs_root = (root_ / "infiniband").string();
    paths_.net_root = (root_ / "net").string();
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // mlx5 on a 10GbE link: the kernel's codes and rate text as it makes them.
  void Mlx5TenGbE(const std::string& speed_mbits) {
    Write("infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
    Write("infiniband/mlx5_0/ports/1/rate", "10 Gb/sec (1X QDR)\n");
    Write("infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "ens1f0\n");
    Write("net/ens1f0/speed", speed_mbits + "\n");
  }

  fs::path root_;
  TrafficPaths paths_;
};

TEST_F(PortRateTest, Mlx5EthernetTakesTheNetdevSpeed) {
  Mlx5TenGbE("10000");
  const PortRate r = DecidePortRate(paths_, "mlx5_0", 1,
                                    {IBV_LINK_LAYER_ETHERNET, kQdr, k1x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 10e9);  // not QDR 1X's 8 Gb/s
  EXPECT_EQ(r.source, "netdev ens1f0 speed 10000 Mb/s");
}

TEST_F(PortRateTest, Mlx5EthernetWithItsLinkDownTakesTheRateTextAsItIs) {
  Mlx5TenGbE("-1");
  const PortRate r = DecidePortRate(paths_, "mlx5_0", 1,
                                    {IBV_LINK_LAYER_ETHERNET, kQdr, k1x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 10e9);
  EXPECT_EQ(r.source, "sysfs rate \"10 Gb/sec (1X QDR)\"");
}

TEST_F(PortRateTest, EthernetCodesAloneAreTheirNominalRate) {
  const PortRate r = DecidePortRate(paths_, "mlx5_0", 1,
                                    {IBV_LINK_LAYER_ETHERNET, kQdr, k4x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 40e9);  // 40GbE, not 32 Gb/s
}

TEST_F(PortRateTest, EfaWithoutANetdevIsUnknownAndSaysWhatToDo) {
  Write("infiniband/efa_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  fs::create_directories(root_ / "drivers/efa");
  fs::create_directories(root_ / "infiniband/rdmap0s6/device");
  fs::create_symlink(root_ / "drivers/efa",
                     root_ / "infiniband/rdmap0s6/device/driver");
  for (const char* dev : {"efa_0", "rdmap0s6"}) {
    const PortRate r = DecidePortRate(paths_, dev, 1, {0, kEdr, k4x}, 0);
    EXPECT_EQ(r.bits_per_s, 0) << dev;
    EXPECT_NE(r.source.find("link rate unknown on EFA"), std::string::npos);
    EXPECT_NE(r.source.find("--link-bandwidth"), std::string::npos);
  }
}

TEST_F(PortRateTest, EfaWithANetdevTakesItsSpeed) {
  Write("infiniband/efa_0/ports/1/gid_attrs/ndevs/0", "ens5\n");
  Write("net/ens5/speed", "25000\n");
  const PortRate r = DecidePortRate(paths_, "efa_0", 1, {0, kEdr, k4x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 25e9);
  EXPECT_EQ(r.source, "netdev ens5 speed 25000 Mb/s");
}

TEST_F(PortRateTest, ASpeedNewerThanTheCodesComesFromTheRateText) {
  // XDR: active_speed holds no code this libibverbs knows.
  Write("infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
  Write("infiniband/mlx5_0/ports/1/rate", "800 Gb/sec (4X XDR)\n");
  const PortRate r = DecidePortRate(paths_, "mlx5_0", 1,
                                    {IBV_LINK_LAYER_INFINIBAND, 0, k4x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 800e9);
  EXPECT_EQ(r.source, "sysfs rate \"800 Gb/sec (4X XDR)\"");
}

TEST_F(PortRateTest, InfiniBandRateTextLosesItsLineCoding) {
  Write("infiniband/mlx4_0/ports/1/rate", "40 Gb/sec (4X QDR)\n");
  const PortRate r = DecidePortRate(paths_, "mlx4_0", 1,
                                    {IBV_LINK_LAYER_INFINIBAND, kQdr, k4x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 32e9);
}

TEST_F(PortRateTest, WithoutSysfsTheCodesDecide) {
  const PortRate r = DecidePortRate(paths_, "fake0", 1, {0, kEdr, k4x}, 0);
  EXPECT_DOUBLE_EQ(r.bits_per_s, 100e9);
  EXPECT_NE(r.source.find("ibv_query_port"), std::string::npos);
  EXPECT_EQ(DecidePortRate(paths_, "fake0", 1, {0, 0, 0}, 0).bits_per_s, 0);
}

TEST_F(PortRateTest, AUserGivenRateComesFirst) {
  Mlx5TenGbE("10000");
  Write("infiniband/efa_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  for (const char* dev : {"mlx5_0", "efa_0"}) {
    const PortRate r = DecidePortRate(
        paths_, dev, 1, {IBV_LINK_LAYER_ETHERNET, kQdr, k1x}, 25e9);
    EXPECT_DOUBLE_EQ(r.bits_per_s, 25e9) << dev;
    EXPECT_EQ(r.source, "--link-bandwidth");
  }
}

}  // namespace
}  // namespace verbsemu::shim::internal
