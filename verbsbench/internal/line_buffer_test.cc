#include "verbsbench/internal/line_buffer.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace verbsbench::internal {
namespace {

TEST(LineBufferTest, LinesComeOutWholeWhateverTheChunks) {
  LineBuffer b(64);
  b.Append("{\"type\":", "peer");
  EXPECT_FALSE(b.HasLine());
  EXPECT_FALSE(b.Next());
  b.Append("\"ready\"}\n{\"ty", "peer");
  EXPECT_TRUE(b.HasLine());
  EXPECT_EQ(b.Next(), "{\"type\":\"ready\"}");
  EXPECT_FALSE(b.Next());
  b.Append("pe\":\"done\"}\n\n", "peer");
  EXPECT_EQ(b.Next(), "{\"type\":\"done\"}");
  EXPECT_EQ(b.Next(), "");
  EXPECT_FALSE(b.Next());
}

TEST(LineBufferTest, AnEndlessLineIsRefusedAtTheBound) {
  LineBuffer b(16);
  b.Append(std::string(16, 'x'), "10.0.0.1:7");
  try {
    b.Append("y", "10.0.0.1:7");
    FAIL() << "17 bytes without a newline were taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("from 10.0.0.1:7 is longer than 16"),
              std::string::npos)
        << e.what();
  }
}

TEST(LineBufferTest, TheBoundIsPerLineNotPerBuffer) {
  LineBuffer b(8);
  std::string many;
  for (int i = 0; i < 100; ++i) many += "1234567\n";
  b.Append(many, "peer");  // 800 bytes of lines of 7: all within the bound
  int n = 0;
  while (auto line = b.Next()) {
    EXPECT_EQ(*line, "1234567");
    ++n;
  }
  EXPECT_EQ(n, 100);
  b.Append("12345678", "peer");  // a tail of exactly the bound
  EXPECT_THROW(b.Append("9", "peer"), std::runtime_error);
}

}  // namespace
}  // namespace verbsbench::internal
