// contentionfit's output and its one-line errors.
#include "models/contention/predict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace verbsemu::contention {
namespace {

struct Result {
  int code;
  std::string out, err;
};

Result Contentionfit(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunContentionfit(args, out, err);
  return {code, out.str(), err.str()};
}

// POSIX extended regex (GoogleTest's on Linux), anywhere in text.
bool Has(const std::string& text, const std::string& re) {
  return ::testing::Value(text, ::testing::ContainsRegex(re));
}

// The paper's Fig. 3 under the edge reading: per-edge end times and the
// step table with penalties and bytes left.
TEST(Contentionfit, PredictPrintsFig3) {
  const Result r = Contentionfit(
      {"predict", "X>P,X>R,X>S,Y>P,Y>Q,Z>Q", "--model", "mm2011-edge"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out, "^model mm2011-edge, alpha 5.105e-10 s/B, 6 edges\n"))
      << r.out;
  EXPECT_TRUE(Has(
      r.out,
      "\n5 +Z>Q +20971520 +0\\.0000000 +0\\.0160589 +0\\.0160589 +1\\.5000\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "\n0 +X>P +20971520 +0\\.0000000 +0\\.0363748 "))
      << r.out;
  EXPECT_TRUE(
      Has(r.out, "\n1 +0\\.0000000 +0\\.0160589 +3 +Y>P +3\\.3333 +11534336\n"))
      << r.out;
  EXPECT_TRUE(
      Has(r.out, "\n2 +0\\.0160589 +0\\.0297983 +0 +X>P +3\\.5000 +4294168\n"))
      << r.out;
  EXPECT_TRUE(
      Has(r.out, "\n3 +0\\.0297983 +0\\.0363748 +2 +X>S +3\\.0000 +0\n"))
      << r.out;
}

// The default model is the node reading: f gets 10/7.
TEST(Contentionfit, DefaultModelIsNodeReading) {
  const Result r = Contentionfit({"predict", "X>P,X>R,X>S,Y>P,Y>Q,Z>Q"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "^model mm2011-node,")) << r.out;
  EXPECT_TRUE(Has(r.out, "\n1 .* Z>Q +1\\.4286 +0\n")) << r.out;
}

// Per-edge sizes and starts; a lone transfer takes alpha * size.
TEST(Contentionfit, PerEdgeSizesAndStarts) {
  const Result r =
      Contentionfit({"predict", "a>b,c>d", "--sizes", "1MiB,2M", "--starts",
                     "0,1ms", "--alpha", "1e-9", "--model", "maxmin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(
      r.out,
      "\n0 +a>b +1048576 +0\\.0000000 +0\\.0010486 +0\\.0010486 +1\\.0000\n"))
      << r.out;
  EXPECT_TRUE(Has(
      r.out,
      "\n1 +c>d +2097152 +0\\.0010000 +0\\.0030972 +0\\.0020972 +1\\.0000\n"))
      << r.out;
}

TEST(Contentionfit, HelpListsTheModels) {
  const Result r = Contentionfit({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(Has(r.out, "^usage: contentionfit predict GRAPH")) << r.out;
  for (const char* m : {"mm2011-node", "mm2011-edge", "maxmin", "ib-hol"})
    EXPECT_TRUE(Has(r.out, m)) << r.out;
  EXPECT_TRUE(Has(r.out, "--alpha arg \\(=5\\.105e-10\\)")) << r.out;
}

struct BadCase {
  std::vector<std::string> args;
  int code;
  std::string error;  // regex after "contentionfit: error: "
};

TEST(Contentionfit, ErrorsAreOneLineWithExitCode) {
  const std::vector<BadCase> cases = {
      {{}, 2, "no command \\(usage: "},
      {{"fit", "a>b"}, 2, "unknown command 'fit'"},
      {{"predict"}, 2, "no GRAPH, e\\.g\\. a>b,a>c"},
      {{"predict", "a>b", "--bogus"}, 2, "unrecogni[sz]ed option"},
      {{"predict", "a>b", "c>d"}, 2, "too many positional options"},
      {{"predict", "a>b", "--model", "mm2011"},
       2,
       "--model must be one of mm2011-node, mm2011-edge, maxmin, ib-hol, not "
       "'mm2011'"},
      {{"predict", "a>b", "--sizes", "20MB"},
       2,
       "--sizes: '20MB' is not accepted: "},
      {{"predict", "a>b", "--sizes", "0"},
       2,
       "--sizes: '0' is not accepted: a size must be > 0"},
      {{"predict", "a>b,a>c,a>d", "--sizes", "1M,2M"},
       2,
       "--sizes has 2 values for 3 edges: give one, or one per edge"},
      {{"predict", "a>b", "--starts", "1"}, 2, "--starts: '1' is not accepted"},
      {{"predict", "a>b", "--alpha", "0"},
       2,
       "--alpha must be seconds per byte in \\(0, 1\\]"},
      {{"predict", "a>b", "--alpha", "x"},
       2,
       "the argument \\('x'\\) for option '--alpha' is invalid"},
      {{"predict", "a>a"}, 1, "bad graph 'a>a': edge 'a>a' is a self-loop"},
      {{"predict", "a>b,"}, 1, "bad graph 'a>b,': edge '' is not SRC>DST"},
      {{"predict", "a b"}, 1, "bad graph 'a b': edge 'a b' is not SRC>DST"},
  };
  for (const BadCase& c : cases) {
    const Result r = Contentionfit(c.args);
    const std::string what = c.args.empty() ? "(none)" : c.args.back();
    EXPECT_EQ(r.code, c.code) << what << ": " << r.err;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_TRUE(Has(r.err, "^contentionfit: error: " + c.error)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.back(), '\n') << what;
  }
}

}  // namespace
}  // namespace verbsemu::contention
