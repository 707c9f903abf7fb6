// The shim's fixed-size tables when full: the context table (256) here,
// its object left unemulated, one warning, a report line; the application's
// calls unaffected.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

TEST_F(ShimTest, AFullContextTableLeavesTheNextContextUnemulatedAndSaysSo) {
  ConfigureLatency(1e3);
  std::vector<std::unique_ptr<FakeDevice>> devices;
  std::vector<ibv_context*> contexts;
  for (int i = 0; i < 257; ++i) {
    devices.push_back(
        std::make_unique<FakeDevice>(("fake" + std::to_string(i)).c_str()));
    contexts.push_back(OpenDevice(devices.back()->device()));
    ASSERT_NE(contexts.back(), nullptr);
  }
  EXPECT_TRUE(IsContextPatched(contexts[255]));
  EXPECT_FALSE(IsContextPatched(contexts[256]));
  EXPECT_NE(ReportText().find("1 device contexts found the shim's table "
                              "full: not emulated"),
            std::string::npos);
  ResetForTesting();
}

}  // namespace
}  // namespace verbsemu::shim::internal
