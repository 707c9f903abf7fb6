// The built libverbsemu.so carries this build's version note, where
// `verbsemu --version` reads it without loading the library.
#include <gtest/gtest.h>

#include <string>

#include "version/tool_version.h"

namespace verbsemu::version {
namespace {

TEST(VersionNoteTest, TheBuiltShimCarriesThisVersion) {
  // Bazel runs a test at the root of its runfiles tree.
  EXPECT_EQ(OfShim("shim/libverbsemu.so"), std::string(Tail()));
}

}  // namespace
}  // namespace verbsemu::version
