#include "version/tool_version.h"

#include <gtest/gtest.h>
#include <re2/re2.h>
#include <stdio.h>

#include <fstream>
#include <string>

namespace verbsemu::version {
namespace {

// Bazel runs a test at the root of its runfiles tree. A library that
// carries the version note as libverbsemu.so does (//version:shim_note);
// shim/version_note_test.cc checks the built shim itself.
constexpr char kShim[] = "version/note_carrier.so";

std::string Slurp(FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[512];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    out.append(buf, n);
  return out;
}

struct Captured {
  int rc;
  std::string out, err;
};

Captured RunLauncherVersion(const std::string& shim) {
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  const int rc = LauncherVersion(shim, out, err);
  Captured c{rc, Slurp(out), Slurp(err)};
  std::fclose(out);
  std::fclose(err);
  return c;
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(testing::TempDir()) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(ToolVersionTest, LineIsNameReleaseDescribeAndRdmaCore) {
  // The release from debian/changelog, rdma-core from libibverbs-dev.
  EXPECT_TRUE(RE2::FullMatch(
      Line("lopfit"),
      R"(lopfit [0-9]+\.[0-9]+[0-9.~+a-z]* \(git [A-Za-z0-9._+-]+, )"
      R"(rdma-core [0-9]+\.[0-9]+ built against\))"))
      << Line("lopfit");
}

TEST(ToolVersionTest, TailStartsWithTheRelease) {
  EXPECT_EQ(Tail().substr(0, Release().size() + 1),
            std::string(Release()) + " ");
}

TEST(ToolVersionTest, AskedOnlyForVersionAsFirstArgument) {
  const char* version[] = {"x", "--version"};
  const char* help[] = {"x", "--help"};
  const char* later[] = {"x", "run", "--version"};
  EXPECT_TRUE(Asked(2, version));
  EXPECT_FALSE(Asked(2, help));
  EXPECT_FALSE(Asked(3, later));
  EXPECT_FALSE(Asked(1, version));
}

TEST(ToolVersionTest, ShimBytesCarryTheTextAfterTheMarker) {
  using namespace std::string_literals;
  EXPECT_EQ(
      FromShimBytes("\x7f"
                    "ELF\0junk\0verbsemu-shim-version=1.0 (git x)\0more"s),
      "1.0 (git x)");
  EXPECT_EQ(FromShimBytes("no marker here"), std::nullopt);
  EXPECT_EQ(FromShimBytes("verbsemu-shim-version=unterminated"), std::nullopt);
  EXPECT_EQ(FromShimBytes("verbsemu-shim-version=\0"s), std::nullopt);
}

TEST(ToolVersionTest, ALibraryWithTheNoteCarriesThisVersion) {
  EXPECT_EQ(OfShim(kShim), std::string(Tail()));
}

TEST(ToolVersionTest, LauncherPrintsItsLineAndTheShimsWithoutWarning) {
  const Captured c = RunLauncherVersion(kShim);
  EXPECT_EQ(c.rc, 0);
  EXPECT_EQ(c.out, Line("verbsemu") + "\nshim " + kShim + ": " +
                       std::string(Tail()) + "\n");
  EXPECT_EQ(c.err, "");
}

TEST(ToolVersionTest, LauncherWarnsWhenTheShimIsAnotherVersion) {
  using namespace std::string_literals;
  const std::string path =
      WriteTemp("old.so", "verbsemu-shim-version=0.0.1 (git old)\0"s);
  const Captured c = RunLauncherVersion(path);
  EXPECT_EQ(c.rc, 0);
  EXPECT_NE(c.out.find("shim " + path + ": 0.0.1 (git old)\n"),
            std::string::npos);
  EXPECT_NE(c.err.find("warning: the shim is 0.0.1 (git old), this launcher "),
            std::string::npos)
      << c.err;
}

TEST(ToolVersionTest, LauncherWarnsWhenTheShimCarriesNoVersion) {
  const std::string path = WriteTemp("bare.so",
                                     "\x7f"
                                     "ELF no version");
  const Captured c = RunLauncherVersion(path);
  EXPECT_EQ(c.rc, 0);
  EXPECT_NE(c.out.find(": no version\n"), std::string::npos);
  EXPECT_NE(c.err.find("carries no version"), std::string::npos) << c.err;
}

TEST(ToolVersionTest, LauncherWarnsWhenNoShimIsFound) {
  const Captured c = RunLauncherVersion("");
  EXPECT_EQ(c.rc, 0);
  EXPECT_EQ(c.out, Line("verbsemu") + "\n");
  EXPECT_NE(c.err.find("no libverbsemu.so found"), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::version
