// The real link rate the shim takes on the fake device, over fake sysfs
// trees: the netdev speed of an mlx5 10GbE port (its codes read QDR 1X),
// nothing on EFA (its codes always read EDR 4X), the rate text of an IB
// speed newer than the codes, and --link-bandwidth before all of them; the
// report names each link's source. Padding (pad mode) shows the rate used:
// n bytes at B_target owe n * (B_real / B_target - 1) bytes of padding.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "emulate/config.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kMessage = 1 << 20;  // 1024 datagrams of the fake's MTU

class LinkRateTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
            ("link-rate-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
    TrafficPaths paths;
    paths.sysfs_root = (root_ / "infiniband").string();
    paths.net_root = (root_ / "net").string();
    paths.shm_prefix = TestShmPrefix();
    SetTrafficPathsForTesting(paths);
  }
  void TearDown() override {
    ShimTest::TearDown();
    fs::remove_all(root_);
  }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // mlx5_0 on 10GbE, as its kernel shows it: QDR 1X, "10 Gb/sec (1X QDR)".
  void Mlx5TenGbE(FakeDevice& d) {
    d.active_speed = 4;  // QDR
    d.active_width = 1;  // 1X
    Write("infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
    Write("infiniband/mlx5_0/ports/1/rate", "10 Gb/sec (1X QDR)\n");
    Write("infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "ens1f0\n");
    Write("net/ens1f0/speed", "10000\n");
  }
  static bool Says(const std::string& what) {
    const std::string report = ReportText();
    const bool found = report.find(what) != std::string::npos;
    EXPECT_TRUE(found) << "no \"" << what << "\" in\n" << report;
    return found;
  }

  fs::path root_;
};

TEST_F(LinkRateTest, Mlx5TenGbETakesTheNetdevSpeed) {
  FakeDevice d("mlx5_0");
  Mlx5TenGbE(d);
  ConfigureBandwidth("5Gbit/s");  // half of 10 (of 8, QDR 1X: 0.6 owed)
  QpAfterOnePost(d, kMessage);
  EXPECT_EQ(d.ud_datagrams.load(), 1024u);
  Says("link port 1: real rate 10Gbit/s (netdev ens1f0 speed 10000 Mb/s)");
}

TEST_F(LinkRateTest, EfaRateIsUnknownAndTheReportSaysWhatToDo) {
  FakeDevice d("efa_0");  // codes EDR 4X, as EFA's always are
  Write("infiniband/efa_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  ConfigureBandwidth("25Gbit/s");
  QpAfterOnePost(d, kMessage);
  EXPECT_EQ(d.ud_datagrams.load(), 0u);  // not 3072 from a fake 100 Gbit/s
  Says("real rate unknown (link rate unknown on EFA");
  Says("give --link-bandwidth");
}

TEST_F(LinkRateTest, XdrComesFromTheRateText) {
  FakeDevice d("mlx5_2");
  d.active_speed = 0;  // XDR has no code in this libibverbs's field
  Write("infiniband/mlx5_2/ports/1/rate", "800 Gb/sec (4X XDR)\n");
  ConfigureBandwidth("400Gbit/s");
  QpAfterOnePost(d, kMessage);
  EXPECT_EQ(d.ud_datagrams.load(), 1024u);
  Says("(sysfs rate \"800 Gb/sec (4X XDR)\")");
}

TEST_F(LinkRateTest, AUserGivenRateComesFirst) {
  FakeDevice d("mlx5_0");
  Mlx5TenGbE(d);
  ConfigureBandwidth("5Gbit/s", 0, emulate::BwMode::kPad, 20e9);
  QpAfterOnePost(d, kMessage);
  EXPECT_EQ(d.ud_datagrams.load(), 3072u);
  Says("(--link-bandwidth)");
}

}  // namespace
}  // namespace verbsemu::shim::internal
