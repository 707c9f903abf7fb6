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

TEST(ParseGridTest, LogGpAxesMultiplyTheGrid) {
  std::string why;
  const auto g = ParseGrid("0,1us", "", {"0,1us,2us", "", "0,500ns"}, &why);
  ASSERT_TRUE(g) << why;
  ASSERT_EQ(g->points.size(), 2u * 3 * 1 * 2);
  EXPECT_TRUE(g->points[0].baseline());
  // Latency-major, then overhead, receive overhead, gap.
  const GridPoint& p = g->points[3];
  EXPECT_EQ(p.latency_ns, 0);
  EXPECT_EQ(p.durations, (DurationTexts{"1us", "0", "500ns"}));
  EXPECT_EQ(p.durations_ns, (DurationNs{1000, 0, 500}));
  EXPECT_FALSE(p.plain());
  EXPECT_FALSE(p.baseline());
  EXPECT_TRUE(g->points[6].plain());
  EXPECT_EQ(g->points[6].latency_ns, 1000);
  const auto env = p.Environment("pad");
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0],
            (std::pair<std::string, std::string>{"VERBSEMU_OVERHEAD", "1us"}));
  EXPECT_EQ(env[1],
            (std::pair<std::string, std::string>{"VERBSEMU_GAP", "500ns"}));
}

TEST(ParseGridTest, BadOrRepeatedLogGpValuesAreOneLine) {
  std::string why;
  EXPECT_FALSE(ParseGrid("0", "", {"0,-1us", "", ""}, &why));
  EXPECT_NE(why.find("--overhead"), std::string::npos) << why;
  EXPECT_NE(why.find("VERBSEMU_OVERHEAD"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_FALSE(ParseGrid("0", "", {"", "2 parsecs", ""}, &why));
  EXPECT_NE(why.find("--recv-overhead"), std::string::npos) << why;
  EXPECT_FALSE(ParseGrid("0", "", {"", "", "1us,1000ns"}, &why));
  EXPECT_NE(why.find("gap 1000ns twice"), std::string::npos) << why;
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
