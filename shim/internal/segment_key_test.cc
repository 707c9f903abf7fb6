#include "shim/internal/segment_key.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

// A fake sysfs: ROOT/devices holds PCI functions, ROOT/class/infiniband the
// RDMA devices whose `device` links point into it, as the kernel lays out.
class SegmentKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/verbsemu-segkey-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    bus_ = root_ / "devices/pci0000:3a/0000:3a:00.0";
    paths_.sysfs_root = (root_ / "class/infiniband").string();
    Pci("0000:3b:00.0");  // PF, port 1 of the card
    Pci("0000:3b:00.1");  // PF, port 2 of the card
    Vf("0000:3b:00.2", "0000:3b:00.0");
    Vf("0000:3b:00.3", "0000:3b:00.0");
    Device("mlx5_0", bus_ / "0000:3b:00.0");
    Device("mlx5_1", bus_ / "0000:3b:00.1");
    Device("mlx5_2", bus_ / "0000:3b:00.2");
    Device("mlx5_3", bus_ / "0000:3b:00.3");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Pci(const std::string& addr) { fs::create_directories(bus_ / addr); }
  // A VF, whose physfn is a relative link to its PF as in sysfs.
  void Vf(const std::string& addr, const std::string& pf) {
    Pci(addr);
    fs::create_directory_symlink("../" + pf, bus_ / addr / "physfn");
  }
  void Device(const std::string& name, const fs::path& target) {
    const fs::path dir = fs::path(paths_.sysfs_root) / name;
    fs::create_directories(dir);
    fs::create_directories(target);
    fs::create_directory_symlink(target, dir / "device");
  }
  void SoftDevice(const std::string& name, const std::string& netdev) {
    const fs::path dir = fs::path(paths_.sysfs_root) / name;
    fs::create_directories(dir);
    std::ofstream(dir / "parent") << netdev << "\n";
  }
  std::string Uid() const { return std::to_string(getuid()); }

  fs::path root_, bus_;
  TrafficPaths paths_;
};

TEST_F(SegmentKeyTest, TwoVfsOfOnePfShareOneLinkSegmentName) {
  EXPECT_EQ(PhysicalPortKey(paths_.sysfs_root, "mlx5_2"), "pci-0000:3b:00.0");
  EXPECT_EQ(LinkSegmentName(paths_, "mlx5_2", 1),
            LinkSegmentName(paths_, "mlx5_3", 1));
  // ... and the PF's own device: one wire.
  EXPECT_EQ(LinkSegmentName(paths_, "mlx5_2", 1),
            LinkSegmentName(paths_, "mlx5_0", 1));
  EXPECT_EQ(SegmentName(paths_, "mlx5_2", 1), SegmentName(paths_, "mlx5_3", 1));
  EXPECT_EQ(LinkSegmentName(paths_, "mlx5_3", 1),
            "/verbsemu-link-v2-u" + Uid() + "-pci-0000:3b:00.0-p1");
}

TEST_F(SegmentKeyTest, DevicesOnDifferentPciFunctionsDoNot) {
  EXPECT_NE(LinkSegmentName(paths_, "mlx5_0", 1),
            LinkSegmentName(paths_, "mlx5_1", 1));
  EXPECT_NE(SegmentName(paths_, "mlx5_0", 1), SegmentName(paths_, "mlx5_1", 1));
  // Two ports of one PCI function (ConnectX-3) stay apart by port number.
  EXPECT_NE(LinkSegmentName(paths_, "mlx5_0", 1),
            LinkSegmentName(paths_, "mlx5_0", 2));
}

TEST_F(SegmentKeyTest, AnAuxiliaryDeviceIsKeyedByItsPciFunction) {
  Pci("0000:5e:00.0");
  Device("irdma0", bus_ / "0000:5e:00.0/ice.roce.0");
  EXPECT_EQ(PhysicalPortKey(paths_.sysfs_root, "irdma0"), "pci-0000:5e:00.0");
  // A VF's auxiliary device still finds the VF's PF.
  Device("mlx5_9", bus_ / "0000:3b:00.2/mlx5_core.rdma.9");
  EXPECT_EQ(PhysicalPortKey(paths_.sysfs_root, "mlx5_9"), "pci-0000:3b:00.0");
}

TEST_F(SegmentKeyTest, SoftDevicesAreKeyedByTheirNetdev) {
  SoftDevice("rxe0", "eth0");
  SoftDevice("siw0", "eth0");
  SoftDevice("rxe1", "eth1");
  EXPECT_EQ(PhysicalPortKey(paths_.sysfs_root, "rxe0"), "net-eth0");
  EXPECT_EQ(LinkSegmentName(paths_, "rxe0", 1),
            LinkSegmentName(paths_, "siw0", 1));
  EXPECT_NE(LinkSegmentName(paths_, "rxe0", 1),
            LinkSegmentName(paths_, "rxe1", 1));
  EXPECT_EQ(SegmentName(paths_, "rxe1", 1),
            "/verbsemu-v2-u" + Uid() + "-net-eth1-p1");
}

TEST_F(SegmentKeyTest, AnUnplacedDeviceWithoutAJobKeepsTheEarlierNames) {
  EXPECT_EQ(PhysicalPortKey(paths_.sysfs_root, "ghost0"), "ghost0");
  EXPECT_EQ(LinkSegmentName(paths_, "ghost0", 1),
            "/verbsemu-link-v2-u" + Uid() + "-ghost0-p1");
  EXPECT_EQ(LinkSegmentName(paths_, "ghost0", 2, "far"),
            "/verbsemu-link-v2-u" + Uid() + "-ghost0-p2-cfar");
  EXPECT_EQ(SegmentName(paths_, "ghost0", 1),
            "/verbsemu-v2-u" + Uid() + "-ghost0-p1");
}

TEST_F(SegmentKeyTest, TwoJobsGetDifferentNames) {
  TrafficPaths a = paths_, b = paths_;
  a.job = "1001";
  b.job = "1002";
  EXPECT_NE(LinkSegmentName(a, "mlx5_0", 1), LinkSegmentName(b, "mlx5_0", 1));
  EXPECT_NE(SegmentName(a, "mlx5_0", 1), SegmentName(b, "mlx5_0", 1));
  EXPECT_NE(LinkSegmentName(a, "mlx5_0", 1),
            LinkSegmentName(paths_, "mlx5_0", 1));
  EXPECT_EQ(LinkSegmentName(a, "mlx5_2", 1),
            "/verbsemu-link-v2-u" + Uid() + "-j1001-pci-0000:3b:00.0-p1");
}

TEST_F(SegmentKeyTest, JobTextIsMadeSafeForAName) {
  paths_.job = "prterun-node7-4242@1/x";
  EXPECT_EQ(SegmentName(paths_, "ghost0", 1),
            "/verbsemu-v2-u" + Uid() + "-jprterun-node7-4242_1_x-ghost0-p1");
  EXPECT_EQ(SegmentNamePart(std::string(200, 'a')).size(), 96u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
