// libmlx5's gate under the shim: emulated devices report no direct verbs
// (so UCX and NCCL post through verbs), VERBSEMU_DIRECT_VERBS=allow gives
// the real answer and a warning, other devices always get the real answer.
#include "shim/internal/direct_verbs.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <string>

#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class DirectVerbsTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    RealVerbs fake = FakeDevice::MakeRealVerbs();
    fake.mlx5dv_is_supported = [](ibv_device*) { return true; };  // ConnectX
    SetRealVerbsForTesting(fake);
  }
  Settings Latency() {
    Settings s;
    s.engine.latency_ns = 1000;
    return s;
  }
};

TEST_F(DirectVerbsTest, EmulatedDeviceReportsNoDirectVerbs) {
  Configure(Latency());
  FakeDevice d("mlx5_0");
  EXPECT_FALSE(Mlx5dvIsSupported(d.device()));
  EXPECT_FALSE(Mlx5dvIsSupported(d.device()));
  Open(d);  // the report lists devices that were opened
  const std::string report = ReportText();
  EXPECT_NE(report.find("answered false 2 times"), std::string::npos) << report;
}

TEST_F(DirectVerbsTest, AllowGivesTheRealAnswerAndWarns) {
  Settings s = Latency();
  s.allow_direct_verbs = true;
  Configure(s);
  FakeDevice d("mlx5_0");
  EXPECT_TRUE(Mlx5dvIsSupported(d.device()));
  EXPECT_NE(ReportText().find("NOT emulated"), std::string::npos);
}

TEST_F(DirectVerbsTest, DevicesNotEmulatedGetTheRealAnswer) {
  Settings s = Latency();
  s.devices = {"mlx5_1"};
  Configure(s);
  FakeDevice other("mlx5_0");
  EXPECT_TRUE(Mlx5dvIsSupported(other.device()));
  Configure(Settings{});  // no knob: the shim emulates nothing
  EXPECT_TRUE(Mlx5dvIsSupported(other.device()));
  EXPECT_EQ(ReportText().find("direct verbs"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::shim::internal
