#include "base/enum_table.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::base {
namespace {
enum class Three { kA, kBee, kC };
enum class One { kOnly };
enum class Two { kX, kY };
}  // namespace

template <>
struct EnumTable<Three> {
  static constexpr std::array<std::pair<Three, const char*>, 3> kRows = {
      {{Three::kA, "a"}, {Three::kBee, "bee"}, {Three::kC, "c"}}};
};
template <>
struct EnumTable<One> {
  static constexpr std::array<std::pair<One, const char*>, 1> kRows = {
      {{One::kOnly, "only"}}};
};
template <>
struct EnumTable<Two> {
  static constexpr std::array<std::pair<Two, const char*>, 2> kRows = {
      {{Two::kX, "x"}, {Two::kY, "y"}}};
};

namespace {

TEST(EnumTableTest, ParsesAndNamesEachRow) {
  EXPECT_EQ(ParseEnum<Three>("bee"), Three::kBee);
  EXPECT_EQ(ParseEnum<Three>("a"), Three::kA);
  EXPECT_EQ(ParseEnum<Three>("Bee"), std::nullopt);
  EXPECT_EQ(ParseEnum<Three>(""), std::nullopt);
  EXPECT_EQ(std::string(EnumName(Three::kC)), "c");
  EXPECT_EQ(std::string(EnumName(static_cast<Three>(7))), "?");
  static_assert(ParseEnum<Two>("y") == Two::kY);
}

TEST(EnumTableTest, JoinsTheSpellingsForUsageAndMessages) {
  EXPECT_EQ(kEnumBar<Three>, "a|bee|c");
  EXPECT_EQ(kEnumChoices<Three>, "a, bee or c");
  EXPECT_EQ(kEnumBar<Two>, "x|y");
  EXPECT_EQ(kEnumChoices<Two>, "x or y");
  EXPECT_EQ(kEnumBar<One>, "only");
  EXPECT_EQ(kEnumChoices<One>, "only");
  static_assert(kEnumBar<Two>.size() == 3);
}

}  // namespace
}  // namespace verbsemu::base
