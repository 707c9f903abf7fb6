#include "doctor/shm_check.h"

#include <gtest/gtest.h>

#include "doctor/fake_system_view.h"

namespace verbsemu::doctor {
namespace {

TEST(CheckSharedMemory, WritableWithRoomIsOk) {
  FakeSystemView v;
  v.spaces["/dev/shm"] = {true, true, 64ull << 20};
  const Findings f = CheckSharedMemory(v);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(FormatFinding(f[0]),
            "ok: shared memory /dev/shm: writable, 64 MiB free");
}

TEST(CheckSharedMemory, EachFaultIsAProblem) {
  FakeSystemView v;
  EXPECT_NE(CheckSharedMemory(v)[0].text.find("/dev/shm: no such directory"),
            std::string::npos);
  v.spaces["/dev/shm"] = {true, false, 64ull << 20};
  EXPECT_NE(CheckSharedMemory(v)[0].text.find("not writable"),
            std::string::npos);
  v.spaces["/dev/shm"] = {true, true, (16ull << 20) - 1};
  const Finding f = CheckSharedMemory(v)[0];
  EXPECT_TRUE(f.problem());
  EXPECT_NE(f.text.find("15 MiB free, under 16 MiB"), std::string::npos);
}

TEST(CheckSharedMemory, VerbsemuShmDirIsCheckedInstead) {
  FakeSystemView v;
  v.env["VERBSEMU_SHM_DIR"] = "/host/shm";
  v.spaces["/dev/shm"] = {true, true, 64ull << 20};
  v.spaces["/host/shm"] = {true, true, 1ull << 30};
  EXPECT_EQ(CheckSharedMemory(v)[0].text,
            "shared memory /host/shm: writable, 1024 MiB free");
}

TEST(RealSystemView, SpaceOfAMissingDirectory) {
  const RealSystemView real;
  EXPECT_FALSE(real.Space("/no/such/dir/for/verbsemu").exists);
  EXPECT_TRUE(real.Space("/tmp").exists);
}

}  // namespace
}  // namespace verbsemu::doctor
