#include "base/json_number.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace base {
namespace {

using nlohmann::json;

TEST(WholeNumber, IntegersWithinTheTypesRange) {
  EXPECT_EQ(WholeNumber<int>(json::parse("-7")), -7);
  EXPECT_EQ(WholeNumber<std::uint8_t>(json::parse("255")), 255);
  EXPECT_EQ(WholeNumber<std::uint64_t>(json::parse("18446744073709551615")),
            UINT64_MAX);
  EXPECT_EQ(WholeNumber<std::int64_t>(json::parse("-9223372036854775808")),
            INT64_MIN);
}

TEST(WholeNumber, OutOfRangeIsNothing) {
  EXPECT_FALSE(WholeNumber<std::uint8_t>(json::parse("256")));
  EXPECT_FALSE(WholeNumber<std::uint32_t>(json::parse("-1")));
  EXPECT_FALSE(WholeNumber<std::int8_t>(json::parse("-129")));
  EXPECT_FALSE(WholeNumber<std::int64_t>(json::parse("9223372036854775808")));
}

TEST(WholeNumber, WholeFloatsCountButNotBeyondTheType) {
  EXPECT_EQ(WholeNumber<std::size_t>(json::parse("1e3")), 1000u);
  EXPECT_EQ(WholeNumber<int>(json::parse("-2.0")), -2);
  // A float above every uint64_t: nlohmann's get<> would be undefined.
  EXPECT_FALSE(WholeNumber<std::size_t>(json::parse("3.3e113")));
  EXPECT_FALSE(
      WholeNumber<std::uint64_t>(json::parse("18446744073709551616.0")));
  EXPECT_FALSE(WholeNumber<std::int64_t>(json::parse("-9.3e18")));
  EXPECT_FALSE(WholeNumber<int>(json::parse("1.5")));
}

TEST(WholeNumber, NonNumbersAreNothing) {
  for (const char* text : {"\"3\"", "true", "null", "[1]", "{}"}) {
    EXPECT_FALSE(WholeNumber<int>(json::parse(text))) << text;
  }
}

}  // namespace
}  // namespace base
