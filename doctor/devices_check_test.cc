#include "doctor/devices_check.h"

#include <gtest/gtest.h>

#include "doctor/fake_system_view.h"
#include "doctor/provider_limits.h"

namespace verbsemu::doctor {
namespace {

std::string All(const Findings& f) {
  std::string s;
  for (const Finding& x : f) s += FormatFinding(x) + "\n";
  return s;
}

TEST(ProviderForDriver, KnownDrivers) {
  EXPECT_EQ(ProviderForDriver("mlx5_core"), "mlx5");
  EXPECT_EQ(ProviderForDriver("efa"), "efa");
  EXPECT_EQ(ProviderForDriver("irdma"), "irdma");
  EXPECT_EQ(ProviderForDriver("bnxt_en"), "bnxt_re");
  EXPECT_EQ(ProviderForDriver("hns_roce_hw_v2"), "hns");
  EXPECT_EQ(ProviderForDriver("hns3"), "hns");
  EXPECT_EQ(ProviderForDriver("mana"), "mana");
  EXPECT_EQ(ProviderForDriver("rxe"), "rxe");
  EXPECT_EQ(ProviderForDriver("siw"), "siw");
  EXPECT_EQ(ProviderForDriver("irdma.gen_2"), "irdma");
  EXPECT_EQ(ProviderForDriver("mlx5_ib.rdma"), "mlx5");
  EXPECT_EQ(ProviderForDriver("bnxt_re.rdma"), "bnxt_re");
  EXPECT_EQ(ProviderForDriver("qede"), "");
  EXPECT_EQ(ProviderForDriver(""), "");
}

TEST(ListDevices, ReadsSysfs) {
  FakeSystemView v;
  v.AddDevice("mlx5_0", "../../../../bus/pci/drivers/mlx5_core", "1: CA",
              "InfiniBand");
  v.AddDevice("rxe0", "", "1: CA", "Ethernet");
  v.AddDevice("siw0", "", "4: RNIC", "Ethernet");
  const std::vector<DeviceInfo> d = ListDevices(v);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name, "mlx5_0");
  EXPECT_EQ(d[0].driver, "mlx5_core");
  EXPECT_EQ(d[0].provider, "mlx5");
  ASSERT_EQ(d[0].ports.size(), 1u);
  EXPECT_EQ(d[0].ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(d[0].ports[0].rate, "100 Gb/sec (4X EDR)");
  EXPECT_EQ(d[0].ports[0].state, "ACTIVE");
  EXPECT_EQ(d[1].driver, "rxe");
  EXPECT_FALSE(d[1].iwarp());
  EXPECT_EQ(d[2].driver, "siw");
  EXPECT_TRUE(d[2].iwarp());
}

// A soft device is known by its `parent` file even with a device link (to
// its netdev's hardware).
TEST(ListDevices, ParentFileWinsOverADeviceLink) {
  FakeSystemView v;
  v.AddDevice("rxe0", "", "1: CA", "Ethernet");
  v.links["/sys/class/infiniband/rxe0/device/driver"] = "../virtio_net";
  EXPECT_EQ(ListDevices(v).at(0).provider, "rxe");
}

TEST(CheckDevices, NoDeviceIsAProblem) {
  const Findings f = CheckDevices({});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].problem());
}

TEST(CheckDevices, EachKindGetsItsLimitsFromTheTable) {
  FakeSystemView v;
  v.AddDevice("efa_0", "../../efa", "1: CA", "Unspecified");
  v.AddDevice("irdma0", "../../irdma", "4: RNIC", "Ethernet");
  v.AddDevice("mlx5_0", "../../mlx5_core", "1: CA", "Ethernet");
  v.AddDevice("qedr0", "../../qede", "1: CA", "Ethernet");
  const Findings f = CheckDevices(ListDevices(v));
  for (const Finding& x : f) EXPECT_FALSE(x.problem()) << x.text;
  const std::string s = All(f);
  EXPECT_NE(s.find("info: device efa_0: driver efa, provider efa, node type "
                   "CA; port 1: Unspecified, 100 Gb/sec (4X EDR), ACTIVE\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("efa_0 (efa): SRD QPs are emulated through "
                   "efadv_create_qp_ex; libfabric's direct data path must "
                   "stay off (FI_EFA_USE_DATA_PATH_DIRECT=0"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("irdma0 (irdma): iWARP QPs are connected without an "
                   "address vector: --bw-mode pad paces them instead"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("mlx5_0 (mlx5): mlx5dv and DEVX direct verbs are hidden"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("qedr0 (?): a driver verbsemu has no notes for"),
            std::string::npos)
      << s;
  // The iWARP limit is said once per iWARP device, never for others.
  size_t n = 0;
  for (size_t at = s.find("iWARP QPs"); at != std::string::npos;
       at = s.find("iWARP QPs", at + 1)) {
    ++n;
  }
  EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace verbsemu::doctor
