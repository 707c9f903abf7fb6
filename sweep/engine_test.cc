#include "sweep/engine.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

TEST(LastLineTest, TheLastNonEmptyLine) {
  EXPECT_EQ(LastLine("first\nsecond\n\n  \n"), "second");
  EXPECT_EQ(LastLine("only"), "only");
  EXPECT_EQ(LastLine("\n\n"), "");
}

TEST(LastLineTest, ALongLineIsCutOnACharacterBoundary) {
  std::string line;
  for (int i = 0; i < 150; ++i) line += "\xc3\xa9";  // é, two bytes
  line = "x" + line;  // byte 200 is the second byte of an é
  const std::string cut = LastLine("before\n" + line + "\n");
  EXPECT_EQ(cut, line.substr(0, 199) + "...");
  std::string ascii(300, 'a');
  EXPECT_EQ(LastLine(ascii), std::string(200, 'a') + "...");
}

}  // namespace
}  // namespace verbsemu::sweep
