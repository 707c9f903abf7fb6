#include "sweep/metric.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

TEST(MetricTest, RuntimeIsTheWallTime) {
  std::string why;
  const auto m = Metric::Parse("runtime", "", &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(*m->FromOutput("anything", 1.25, &why), 1.25);
}

TEST(MetricTest, RegexTakesTheFirstGroupOfTheLastMatch) {
  std::string why;
  const auto m = Metric::Parse(R"(regex:Loop time of ([0-9.]+))", "", &why);
  ASSERT_TRUE(m) << why;
  const std::string out =
      "Loop time of 1.5 on 2 procs\nsetup\nLoop time of 12.75 on 2 procs\n";
  EXPECT_EQ(*m->FromOutput(out, 0, &why), 12.75);
  EXPECT_FALSE(m->FromOutput("no such line", 0, &why));
  EXPECT_NE(why.find("matches nothing"), std::string::npos);
  const auto whole = Metric::Parse("regex:[0-9]+", "", &why);
  EXPECT_EQ(*whole->FromOutput("a 1 b 22", 0, &why), 22);
}

TEST(MetricTest, JsonPointerIntoTheFile) {
  std::string why;
  const auto m = Metric::Parse("json:/results/1/t", "out.json", &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(*m->FromJson(R"({"results":[{"t":1},{"t":2.5}]})", &why), 2.5);
  EXPECT_EQ(*m->FromJson(R"({"results":[{},{"t":"3"}]})", &why), 3);
  EXPECT_FALSE(m->FromJson(R"({"results":[]})", &why));
  EXPECT_NE(why.find("nothing at /results/1/t"), std::string::npos);
  EXPECT_FALSE(m->FromJson("{", &why));
  // Found by metric_fuzz: a token that is no array index threw.
  const auto odd = Metric::Parse("json:/a//x", "f.json", &why);
  ASSERT_TRUE(odd) << why;
  EXPECT_FALSE(odd->FromJson(R"({"a":[1.5]})", &why));
  EXPECT_NE(why.find("nothing at"), std::string::npos) << why;
  EXPECT_FALSE(m->FromJson(R"({"results":[{},{"t":[1]}]})", &why));
}

TEST(MetricTest, BadSpecsAreOneLine) {
  std::string why;
  EXPECT_FALSE(Metric::Parse("latency", "", &why));
  EXPECT_NE(
      why.find("runtime, preset:NAME[:ARG], regex:PATTERN or json:POINTER"),
      std::string::npos);
  EXPECT_FALSE(Metric::Parse("regex:(unclosed", "", &why));
  EXPECT_NE(why.find("does not compile"), std::string::npos);
  EXPECT_FALSE(Metric::Parse("json:/a", "", &why));
  EXPECT_NE(why.find("--metric-file"), std::string::npos);
  EXPECT_FALSE(Metric::Parse("json:a", "f.json", &why));
  EXPECT_FALSE(Metric::Parse("regex:", "", &why));
  // Found by metric_fuzz when this was std::regex, which took these and
  // backtracked forever; RE2 refuses a quantifier on a quantifier.
  EXPECT_FALSE(Metric::Parse("regex:.+-?+++", "", &why));
  EXPECT_NE(why.find("bad repetition"), std::string::npos) << why;
  EXPECT_FALSE(Metric::Parse("regex:a**", "", &why));
  EXPECT_TRUE(Metric::Parse(R"(regex:a+?b\*+[*+]+x{2,3}?)", "", &why)) << why;
}

TEST(MetricTest, NestedQuantifiersRunInLinearTime) {
  // A backtracking engine takes 2^n steps here; RE2 one pass per line.
  std::string why;
  const auto m = Metric::Parse("regex:^(a+)+$", "", &why);
  ASSERT_TRUE(m) << why;
  const std::string line(100000, 'a');
  EXPECT_FALSE(m->FromOutput(line + "b\n", 0, &why));
  EXPECT_NE(why.find("matches nothing"), std::string::npos) << why;
}

TEST(MetricTest, EmptyMatchesAdvanceAndTheLastMatchCounts) {
  std::string why;
  const auto m = Metric::Parse("regex:([0-9]*)", "", &why);
  ASSERT_TRUE(m) << why;
  // Every position matches (most of them empty); the last is the empty
  // match at the line's end, which is no number.
  EXPECT_FALSE(m->FromOutput("x 12 y\n", 0, &why));
  EXPECT_NE(why.find("not a number"), std::string::npos) << why;
  const auto digits = Metric::Parse("regex:t=([0-9]+)", "", &why);
  ASSERT_TRUE(digits) << why;
  EXPECT_EQ(digits->FromOutput("t=1 t=2\nno\nt=3 end", 0, &why), 3.0) << why;
}

}  // namespace
}  // namespace verbsemu::sweep
