#include "sweep/preflight.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace verbsemu::sweep {
namespace {

namespace fs = std::filesystem;

class CheckDevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    sysfs_ = fs::path(tmp ? tmp : "/tmp") /
             ("infiniband-" + std::to_string(getpid()));
    fs::remove_all(sysfs_);
    fs::create_directories(sysfs_);
  }
  std::string Check() {
    return CheckDevices(
        [this](const char* name) -> const char* {
          const auto it = env_.find(name);
          return it == env_.end() ? nullptr : it->second.c_str();
        },
        sysfs_.string());
  }
  fs::path sysfs_;
  std::map<std::string, std::string> env_;
};

TEST_F(CheckDevicesTest, AListThatNamesNoDeviceHereIsRefused) {
  fs::create_directories(sysfs_ / "mlx5_0");
  fs::create_directories(sysfs_ / "rxe0");
  env_["VERBSEMU_DEVICES"] = "mlx5_1";
  const std::string why = Check();
  EXPECT_NE(why.find("VERBSEMU_DEVICES=mlx5_1 names none of"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("mlx5_0"), std::string::npos) << why;
  env_["VERBSEMU_DEVICES"] = "mlx5_1,rxe0";
  EXPECT_EQ(Check(), "");
}

TEST_F(CheckDevicesTest, NoListOrNoDeviceHereIsNotJudged) {
  fs::create_directories(sysfs_ / "mlx5_0");
  EXPECT_EQ(Check(), "");  // unset: every device
  fs::remove_all(sysfs_ / "mlx5_0");
  env_["VERBSEMU_DEVICES"] = "mlx5_1";
  EXPECT_EQ(Check(), "");  // a login node: the ranks run elsewhere
}

TEST_F(CheckDevicesTest, ABadInheritedValueIsRefused) {
  env_["VERBSEMU_DEVICES"] = "a,,b";
  EXPECT_NE(Check().find("VERBSEMU_DEVICES"), std::string::npos) << Check();
}

}  // namespace
}  // namespace verbsemu::sweep
