#include "tests/rxe/rxe_test.h"

#include <cstdlib>
#include <fstream>

namespace verbsemu::testing {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Port 1's state from sysfs: opening a device here would leave the process
// with a second context on it.
bool PortActive(const std::string& device) {
  std::ifstream state("/sys/class/infiniband/" + device + "/ports/1/state");
  std::string line;
  return std::getline(state, line) && line.find("ACTIVE") != std::string::npos;
}

std::string FirstActiveDevice() {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  std::string name;
  for (int i = 0; list && i < count && name.empty(); ++i) {
    if (PortActive(ibv_get_device_name(list[i])))
      name = ibv_get_device_name(list[i]);
  }
  if (list) ibv_free_device_list(list);
  return name;
}

RxeEnd EndFromEnv(int index) {
  const std::string suffix = std::to_string(index);
  RxeEnd end;
  end.device = Env(("VERBSEMU_VM_DEV" + suffix).c_str());
  end.gid_index = std::atoi(Env(("VERBSEMU_VM_GID" + suffix).c_str()).c_str());
  end.address = Env(("VERBSEMU_VM_ADDR" + suffix).c_str());
  return end;
}

}  // namespace

void RxeTest::SetUp() {
  server_ = EndFromEnv(0);
  if (server_.device.empty()) server_.device = FirstActiveDevice();
  if (server_.device.empty() || !PortActive(server_.device)) {
    GTEST_SKIP()
        << "no active rxe port (run inside soft-roce/vm: tests/vm/run)";
  }
  client_ = EndFromEnv(1);
  if (client_.device.empty()) client_ = server_;
}

Context RxeTest::Open(const RxeEnd& end) const {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  Context context;
  for (int i = 0; list && i < count && !context; ++i) {
    if (end.device == ibv_get_device_name(list[i]))
      context.reset(ibv_open_device(list[i]));
  }
  if (list) ibv_free_device_list(list);
  EXPECT_NE(context, nullptr) << "cannot open " << end.device;
  return context;
}

}  // namespace verbsemu::testing
