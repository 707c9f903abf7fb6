#include "doctor/env_check.h"

#include <gtest/gtest.h>

#include "doctor/fake_system_view.h"

namespace verbsemu::doctor {
namespace {

std::vector<std::string> Problems(const FakeSystemView& v) {
  std::vector<std::string> out;
  for (const Finding& f : CheckEnvironment(v)) {
    if (f.problem()) out.push_back(f.text);
  }
  return out;
}

TEST(CheckEnvironment, CleanEnvironmentIsOk) {
  FakeSystemView v;
  v.env["UCX_TLS"] = "rc_verbs,ud_verbs:aux,self";
  v.env["VERBSEMU_LATENCY"] = "2us";
  const Findings f = CheckEnvironment(v);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, Finding::Kind::kOk);
}

TEST(CheckEnvironment, UcxTransportsThatBypassAreEachAProblem) {
  FakeSystemView v;
  v.env["UCX_TLS"] = "dc_x,sm,self,rc_mlx5,ud_x:aux,rc_gda";
  const auto p = Problems(v);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0],
            "UCX_TLS names dc_x: verbsemu hides mlx5 direct verbs, so UCX has "
            "no dc_x transport and fails or falls back to another (name "
            "rc_verbs,ud_verbs instead)");
  EXPECT_NE(p[1].find("UCX_TLS names rc_mlx5:"), std::string::npos);
  EXPECT_NE(p[2].find("UCX_TLS names ud_x:"), std::string::npos);
  EXPECT_EQ(p[3],
            "UCX_TLS names rc_gda: that transport posts from the GPU, which "
            "no shim can emulate");
}

TEST(CheckEnvironment, DirectVerbsAllowedSaysUnemulated) {
  FakeSystemView v;
  v.env["UCX_TLS"] = "dc";
  v.env["VERBSEMU_DIRECT_VERBS"] = "allow";
  const auto p = Problems(v);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0],
            "UCX_TLS names dc: it posts through mlx5 direct verbs, which are "
            "not emulated (VERBSEMU_DIRECT_VERBS=allow)");
}

TEST(CheckEnvironment, ExclusionListAndLookalikesAreFine) {
  FakeSystemView v;
  v.env["UCX_TLS"] = "^dc_x,rc_x";
  EXPECT_TRUE(Problems(v).empty());
  v.env["UCX_TLS"] = "rc,ud,rc_verbs,dc_xx,tcp";
  EXPECT_TRUE(Problems(v).empty());
}

TEST(CheckEnvironment, GpuInitiatedAndDirectDataPathSwitches) {
  FakeSystemView v;
  v.env["FI_EFA_USE_DATA_PATH_DIRECT"] = "1";
  v.env["NVSHMEM_IB_ENABLE_IBGDA"] = "true";
  v.env["NCCL_GIN_TYPE"] = "3";
  const auto p = Problems(v);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_NE(p[0].find("FI_EFA_USE_DATA_PATH_DIRECT is on"), std::string::npos);
  EXPECT_NE(p[1].find("NVSHMEM_IB_ENABLE_IBGDA is on"), std::string::npos);
  EXPECT_NE(p[2].find("NCCL_GIN_TYPE=3 selects NCCL's GDAKI backend"),
            std::string::npos);
  v.env["FI_EFA_USE_DATA_PATH_DIRECT"] = "0";
  v.env["NVSHMEM_IB_ENABLE_IBGDA"] = "0";
  v.env["NCCL_GIN_TYPE"] = "2";
  EXPECT_TRUE(Problems(v).empty());
}

TEST(CheckEnvironment, EveryBadVerbsemuValueIsALine) {
  FakeSystemView v;
  v.env["VERBSEMU_LATENCY"] = "2parsecs";
  v.env["VERBSEMU_BW_MODE"] = "fast";
  v.env["VERBSEMU_VM_DEV0"] = "rxe0";  // not a setting: not judged
  const auto p = Problems(v);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NE(p[0].find("VERBSEMU_LATENCY"), std::string::npos) << p[0];
  EXPECT_NE(p[1].find("VERBSEMU_BW_MODE"), std::string::npos) << p[1];
  EXPECT_NE(p[1].find("the shim would run unemulated"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::doctor
