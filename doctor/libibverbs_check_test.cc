#include "doctor/libibverbs_check.h"

#include <gtest/gtest.h>

#include "doctor/fake_system_view.h"

namespace verbsemu::doctor {
namespace {

constexpr char kDebianLib[] = "/usr/lib/x86_64-linux-gnu/libibverbs.so.1";

TEST(RdmaCoreRelease, FromTheFileName) {
  EXPECT_EQ(
      RdmaCoreRelease("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"), 44);
  EXPECT_EQ(RdmaCoreRelease("/opt/libibverbs.so.1.15.50.0"), 50);
  EXPECT_EQ(RdmaCoreRelease("/usr/lib/libibverbs.so.1"), 0);
  EXPECT_EQ(RdmaCoreRelease(""), 0);
}

TEST(CheckLibibverbs, NotLoadableIsAProblem) {
  FakeSystemView v;
  v.libibverbs.error = "libibverbs.so.1: cannot open shared object file";
  const Findings f = CheckLibibverbs(v);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].problem());
  EXPECT_EQ(f[0].text,
            "libibverbs.so.1 cannot be loaded (libibverbs.so.1: cannot open "
            "shared object file): verbs programs cannot run here");
}

TEST(CheckLibibverbs, UnreadableOrNotElfIsAProblem) {
  FakeSystemView v;
  v.libibverbs.path = "/lib/libibverbs.so.1.14.50.0";
  Findings f = CheckLibibverbs(v);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].text,
            "libibverbs: /lib/libibverbs.so.1.14.50.0, rdma-core 50");
  EXPECT_TRUE(f[1].problem());
  v.files[v.libibverbs.path] = "junk";
  f = CheckLibibverbs(v);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].text,
            "/lib/libibverbs.so.1.14.50.0: not a 64-bit little-endian ELF "
            "image: how it binds verbs_open_device is unknown");
}

// This machine's Debian libibverbs has a JUMP_SLOT for verbs_open_device.
TEST(CheckLibibverbs, DebiansLibraryBindsThroughThePlt) {
  const RealSystemView real;
  const auto image = real.ReadFile(kDebianLib, 64 << 20);
  if (!image) GTEST_SKIP() << "no " << kDebianLib;
  FakeSystemView v;
  v.libibverbs.path = "/x/libibverbs.so.1.14.44.0";
  v.files[v.libibverbs.path] = *image;
  const Findings f = CheckLibibverbs(v);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_FALSE(f[1].problem());
  EXPECT_EQ(f[1].text, kBindsThroughPlt);
}

// The real view finds the library the loader would load.
TEST(RealSystemView, FindsLibibverbs) {
  const RealSystemView real;
  if (!real.ReadFile(kDebianLib, 1)) GTEST_SKIP() << "no " << kDebianLib;
  const LibraryLocation loc = real.Libibverbs();
  EXPECT_TRUE(loc.error.empty()) << loc.error;
  EXPECT_TRUE(loc.path.starts_with("/")) << loc.path;
  EXPECT_NE(loc.path.find("libibverbs.so.1"), std::string::npos) << loc.path;
}

}  // namespace
}  // namespace verbsemu::doctor
