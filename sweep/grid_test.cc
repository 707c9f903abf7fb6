#include "sweep/grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace verbsemu::sweep {
namespace {

TEST(ParseGridTest, EveryCombinationLatencyMajor) {
  std::string why;
  const auto g = ParseGrid("0,1us,2.5us", "100%,50%", &why);
  ASSERT_TRUE(g) << why;
  ASSERT_EQ(g->points.size(), 6u);
  EXPECT_TRUE(g->points[0].baseline());
  EXPECT_DOUBLE_EQ(g->points[3].latency_ns, 1000);
  EXPECT_DOUBLE_EQ(g->points[3].bandwidth_share, 0.5);
  EXPECT_DOUBLE_EQ(g->points[5].latency_ns, 2500);
}

TEST(ParseGridTest, EnvironmentComesFromTheKnobTable) {
  std::string why;
  const auto g = ParseGrid("0,2us", "100%,25%", &why);
  ASSERT_TRUE(g) << why;
  EXPECT_TRUE(g->points[0].Environment("pace").empty());
  const auto env = g->points[3].Environment("pace");
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0].first, "VERBSEMU_LATENCY");
  EXPECT_EQ(env[0].second, "2us");
  EXPECT_EQ(env[1].first, "VERBSEMU_BANDWIDTH");
  EXPECT_EQ(env[2].second, "pace");
}

TEST(ParseGridTest, BadInputIsOneLine) {
  std::string why;
  EXPECT_FALSE(ParseGrid("0,2parsecs", "", &why));
  EXPECT_NE(why.find("--latency"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_FALSE(ParseGrid("0,,1us", "", &why));
  EXPECT_FALSE(ParseGrid("1us", "150%", &why));
  EXPECT_NE(why.find("--bandwidth"), std::string::npos) << why;
  EXPECT_FALSE(ParseGrid("1us,1us", "", &why));
  EXPECT_NE(why.find("twice"), std::string::npos) << why;
}

}  // namespace
}  // namespace verbsemu::sweep
