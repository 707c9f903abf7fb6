#include "base/doc_section.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace verbsemu::base {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(DocSectionTest, TheTextBetweenTheMarkers) {
  const std::string path = Write(
      "page.md",
      "# Page\n<!-- t:begin -->\n| a | b |\n| 1 | 2 |\n<!-- t:end -->\nrest\n");
  std::string text, why;
  ASSERT_TRUE(DocSection(path, "t", &text, &why)) << why;
  EXPECT_EQ(text, "| a | b |\n| 1 | 2 |\n");
}

TEST(DocSectionTest, AMissingOrMisplacedMarkerIsSaid) {
  std::string text, why;
  const std::string no_end = Write("no_end.md", "<!-- t:begin -->\nx\n");
  EXPECT_FALSE(DocSection(no_end, "t", &text, &why));
  EXPECT_NE(why.find("<!-- t:end -->"), std::string::npos) << why;
  const std::string reversed =
      Write("reversed.md", "<!-- t:end -->\n<!-- t:begin -->\nx\n");
  EXPECT_FALSE(DocSection(reversed, "t", &text, &why));
  const std::string other =
      Write("other.md", "<!-- u:begin -->\nx\n<!-- u:end -->");
  EXPECT_FALSE(DocSection(other, "t", &text, &why));
  EXPECT_FALSE(DocSection(Write("d", "") + "/missing.md", "t", &text, &why));
  EXPECT_NE(why.find("missing.md"), std::string::npos) << why;
}

}  // namespace
}  // namespace verbsemu::base
