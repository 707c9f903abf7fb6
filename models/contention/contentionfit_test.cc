// contentionfit's output and its one-line errors.
#include "models/contention/contentionfit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/contention/contend_data.h"
#include "models/contention/penalty_file.h"

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

// Fig. 4 B's measured times (the paper's T_m) inverted with the rules for
// the later steps: X>P, X>Q 4.931, C>P, D>P, E>P 3.743 (the notes' A.0.8).
TEST(Contentionfit, InvertFig4BMeasured) {
  const Result r =
      Contentionfit({"invert", "X>P,X>Q,C>P,D>P,E>P", "--times",
                     "45.236ms,45.228ms,40.073ms,40.072ms,40.071ms"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "^later steps: model mm2011-node, alpha 5.105e-10 s/B, "
                  "20971520 bytes per edge, 5 edges\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "\n0 +X>P +0\\.0452360 +4\\.2253 +4\\.93[01][0-9] "))
      << r.out;
  EXPECT_TRUE(Has(r.out, "\n4 +E>P +0\\.0400710 +3\\.7429 +3\\.74[23][0-9] "))
      << r.out;
}

// What predict computes, invert gives back: a fan-out of two under
// maxmin ends at 2 alpha m, penalty 2, all bytes in the one step.
TEST(Contentionfit, InvertUndoesPredict) {
  const Result r =
      Contentionfit({"invert", "a>b,a>c", "--times", "2ms,2ms", "--alpha",
                     "1e-9", "--sizes", "1000000", "--model", "maxmin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "\n0 +a>b +0\\.0020000 +2\\.0000 +2\\.0000 +"
                  "1000000 +1\\.000\n"))
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

// Each bad command line, its exit code and its one error line.
const std::vector<BadCase>& BadCases() {
  static const std::vector<BadCase> cases = {
      {{}, 2, "no command \\(usage: "},
      {{"fits", "a>b"}, 2, "unknown command 'fits'"},
      {{"predict"}, 2, "no GRAPH, e\\.g\\. a>b,a>c"},
      {{"predict", "a>b", "--bogus"}, 2, "unrecogni[sz]ed option"},
      {{"predict", "a>b", "c>d"}, 2, "unexpected argument 'c>d' \\(usage: "},
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
      {{"invert", "a>b,a>c"}, 2, "invert needs --times, one duration per edge"},
      {{"invert", "a>b,a>c", "--times", "1ms,2ms,3ms"},
       2,
       "--times has 3 values for 2 edges: give one, or one per edge"},
      {{"invert", "a>b,a>c", "--times", "1ms,2"},
       2,
       "--times: '2' is not accepted"},
      {{"invert", "a>b,a>c", "--times", "1ms,2ms", "--sizes", "1M,2M"},
       2,
       "invert takes one size and no --starts"},
      {{"invert", "a>b,a>c", "--times", "1ms,2ms", "--starts", "0,1ms"},
       2,
       "invert takes one size and no --starts"},
      {{"invert", "a>b,a>c", "--times", "1ms,2ms", "--tolerance", "1"},
       2,
       "--tolerance must be in \\[0, 1\\)"},
      {{"invert", "a>c,b>c", "--times", "1ms,60ms"},
       1,
       "edge 1 \\(b>c\\): the later steps account for all its bytes"},
      {{"invert", "a>a", "--times", "1ms"}, 1, "bad graph 'a>a'"},
      {{"predict", "a>a"}, 1, "bad graph 'a>a': edge 'a>a' is a self-loop"},
      {{"predict", "a>b,"}, 1, "bad graph 'a>b,': edge '' is not SRC>DST"},
      {{"predict", "a b"}, 1, "bad graph 'a b': edge 'a b' is not SRC>DST"},
  };
  return cases;
}

// The same for fit, export and synth.
const std::vector<BadCase>& DataBadCases() {
  static const std::vector<BadCase> cases = {
      {{"fit"}, 2, "no RUN\\.json, the measurement to fit"},
      {{"fit", "/nonexistent/run.json"},
       1,
       "cannot read /nonexistent/run\\.json: No such file or directory"},
      {{"fit", "a.json", "--models", "maxmin,max"},
       2,
       "--models: 'max' is not one of mm2011-node, "},
      {{"fit", "a.json", "--tolerance", "-1"},
       2,
       "--tolerance must be in \\[0, 1\\)"},
      {{"export", "a.json"}, 2, "export needs --out FILE"},
      {{"export", "a.json", "--out", "p", "--model", "fast"},
       2,
       "--model must be one of "},
      {{"synth", "--model", "fast"}, 2, "--model must be one of "},
      {{"synth", "--reps", "0"}, 2, "synthetic data needs a rate > 0"},
      {{"synth", "--rate", "0"}, 2, "--rate must be bytes per second > 0"},
      {{"synth", "--sizes", "1M,2M"}, 2, "synth: --sizes must be one size > 0"},
      {{"predict", "a>b", "--version"},
       2,
       "--version is answered alone: contentionfit --version"},
      {{"compare"}, 2, "compare needs two measurements, BASE\\.json and "},
      {{"compare", "a.json"}, 2, "compare needs two measurements, "},
      {{"compare", "a.json", "b.json", "--expect", "0"},
       2,
       "--expect must be a ratio > 0"},
      {{"compare", "a.json", "b.json", "--expect", "2", "--within", "-1"},
       2,
       "--within must be >= 0"},
      {{"compare", "/nonexistent/a.json", "b.json"},
       1,
       "cannot read /nonexistent/a\\.json: No such file or directory"},
      {{"fit", "a.json", "b.json"}, 2, "unexpected argument 'b\\.json'"},
  };
  return cases;
}

TEST(Contentionfit, ErrorsAreOneLineWithExitCode) {
  std::vector<BadCase> all = BadCases();
  all.insert(all.end(), DataBadCases().begin(), DataBadCases().end());
  for (const BadCase& c : all) {
    const Result r = Contentionfit(c.args);
    const std::string what = c.args.empty() ? "(none)" : c.args.back();
    EXPECT_EQ(r.code, c.code) << what << ": " << r.err;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_TRUE(Has(r.err, "^contentionfit: error: " + c.error)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << what;
  }
}

constexpr const char* kExample =
    "models/contention/testdata/synthetic-mm2011-node.json";

std::string Tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The bundled example (docs/contention.md): made by mm2011-node, which the
// fit picks, with the paper's Fig. 5 table and the penalties.
TEST(Contentionfit, FitsTheBundledExample) {
  const std::string json = Tmp("fit.json");
  const Result r = Contentionfit({"fit", kExample, "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out,
                  "^alpha 3\\.8[0-9]+e-06 s/B \\(26[0-9]+ B/s\\), 95% "
                  "interval 3\\.[0-9]+e-06 \\.\\. 3\\.[0-9]+e-06, 5 runs"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "\nbest model by AICc: mm2011-node\n")) << r.out;
  EXPECT_TRUE(Has(r.out, "\nmm2011-node +350 +-[0-9.]+ +0\\.0 ")) << r.out;
  EXPECT_TRUE(Has(r.out, "the paper's Fig\\. 5")) << r.out;
  // Made by mm2011-node with 1% noise: every transfer of 3 edges within 15%
  // of that model's prediction.
  EXPECT_TRUE(Has(r.out, "transfers within 15% of the prediction")) << r.out;
  EXPECT_TRUE(Has(r.out, "\n3 +[0-9]+ +100\\.0% ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\na>d,b>d,c>d +2 +c>d +3\\.0[0-9]+ ")) << r.out;
  EXPECT_TRUE(Has(r.out, "amplification 4\\.[0-9]+ > 2\\.00\n")) << r.out;
  const std::string written = Slurp(json);
  EXPECT_TRUE(Has(written, "\"schema\": \"verbsemu\\.contentionfit/1\""))
      << written;
  EXPECT_TRUE(Has(written, "\"best\": \"mm2011-node\"")) << written;
  // Per edge count: how many transfers (a count, where a model's within15
  // is a share).
  EXPECT_TRUE(Has(written, "\"transfers_within15\": [0-9]+\n")) << written;
  // The rules' weights: the node reading's near 1 (made by it).
  EXPECT_TRUE(Has(r.out,
                  "\nnode +(0\\.9[5-9]|1\\.0[0-5])[0-9] \\[[0-9.]+, [0-9.]+\\] "
                  "+[1-9][0-9]* "
                  "+(0\\.9[5-9]|1\\.0[0-5])[0-9] \\["))
      << r.out;
  EXPECT_TRUE(Has(written, "\"rule_weights\": \\[")) << written;
  EXPECT_TRUE(Has(written, "\"reading\": \"node\"")) << written;
}

TEST(Contentionfit, ExportWritesWhatThePenaltyReaderReads) {
  const std::string pen = Tmp("example.penalties");
  // ib-hol left out: its chunk simulation is slow under the sanitizers.
  const Result r = Contentionfit({"export", kExample, "--out", pen, "--models",
                                  "mm2011-node,mm2011-edge,maxmin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "^wrote .*example\\.penalties: model mm2011-node, "
                  "[0-9]+ measured shapes \\([0-9]+ graphs with poorly "
                  "determined penalties left to the model\\)\n$"))
      << r.out;
  std::string why;
  const auto file = ParsePenaltyFile(Slurp(pen), &why);
  ASSERT_TRUE(file) << why;
  EXPECT_EQ(file->model->name, "mm2011-node");
  ASSERT_TRUE(file->shapes.contains("0>3,1>3,2>3"));
  for (const double rho : file->shapes.at("0>3,1>3,2>3"))
    EXPECT_NEAR(rho, 3, 0.1);
  EXPECT_FALSE(file->shapes.contains("0>1"));  // one edge: nothing measured
}

TEST(Contentionfit, ExportTakesTheModelAskedFor) {
  const std::string pen = Tmp("maxmin.penalties");
  const Result r = Contentionfit({"export", kExample, "--out", pen, "--model",
                                  "maxmin", "--models", "maxmin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(Slurp(pen), "\nmodel maxmin\n")) << Slurp(pen);
}

TEST(Contentionfit, SynthWritesAMeasurement) {
  const Result r =
      Contentionfit({"synth", "--model", "maxmin", "--reps", "2", "--seed", "3",
                     "--rate", "1MiB", "--sizes", "64KiB"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string why;
  const auto d = ParseContend(r.out, &why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->params.port_rate_Bps, 1048576);
  EXPECT_EQ(d->graphs[0].edges[0].bytes, 65536);
  EXPECT_EQ(d->graphs[0].runs.size(), 2u);
}

// Two synthetic measurements of the same graphs, the second at half the
// port rate: every edge's time doubles, which --expect 2 accepts and
// --expect 1.9 --within 0.05 refuses (exit 1), naming how many edges and
// the farthest; the JSON holds every edge's ratio.
TEST(Contentionfit, CompareFindsTheHalvedRate) {
  const std::string base = Tmp("base.json"), half = Tmp("half.json");
  const std::string json = Tmp("compare.json");
  for (const auto& [path, rate] : {std::pair{base, "256KiB"}, {half, "128KiB"}})
    ASSERT_EQ(Contentionfit({"synth", "--model", "mm2011-node", "--noise", "0",
                             "--rate", rate, "--out", path})
                  .code,
              0);
  Result r =
      Contentionfit({"compare", base, half, "--expect", "2", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "^graph +transfer +base_s +other_s +ratio\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "\na>d,b>d,c>d +c>d +[0-9.]+ +[0-9.]+ +2\\.0000\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out,
                  "\n[0-9]+ edges of graphs in both: ratio median 2\\.0000, "
                  "min 2\\.0000, max 2\\.0000\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "expected 2 ± 0\\.04: every edge within\n$")) << r.out;
  const std::string written = Slurp(json);
  EXPECT_TRUE(
      Has(written, "\"schema\": \"verbsemu\\.contentionfit\\.compare/1\""))
      << written;
  EXPECT_TRUE(Has(written, "\"outside\": 0")) << written;

  r = Contentionfit(
      {"compare", base, half, "--expect", "1.9", "--within", "0.05"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out,
                  "expected 1\\.9 ± 0\\.05: [0-9]+ of [0-9]+ edges outside, "
                  "the farthest .* at 2\\.0000\n$"))
      << r.out;
}

TEST(Contentionfit, CompareWithNothingInCommonIsOneLine) {
  const std::string a = Tmp("one.json");
  const Result synth = Contentionfit({"synth", "--model", "maxmin"});
  std::string why;
  auto d = ParseContend(synth.out, &why).value();
  d.graphs.resize(1);
  std::ofstream(a) << WriteContend(d);
  const std::string b = Tmp("other.json");
  d.graphs[0].name = "renamed";
  std::ofstream(b) << WriteContend(d);
  const Result r = Contentionfit({"compare", a, b});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "contentionfit: error: no graph of " + b +
                       " was measured in " + a +
                       " (graphs match by name, edges, sizes and starts)\n");
}

TEST(Contentionfit, BadMeasurementIsOneLine) {
  const std::string path = Tmp("bad.json");
  std::ofstream(path) << "{\"schema\": \"verbsemu.contend/9\"}";
  const Result r = Contentionfit({"fit", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "contentionfit: error: " + path +
                       ": schema verbsemu.contend/9, this contentionfit reads "
                       "verbsemu.contend/1: use the contentionfit of the same "
                       "release\n");
}

TEST(Contentionfit, MeasurementWithoutOneEdgeGraphIsOneLine) {
  const Result synth = Contentionfit({"synth", "--model", "maxmin"});
  std::string why;
  auto d = ParseContend(synth.out, &why).value();
  d.graphs.erase(d.graphs.begin());
  const std::string path = Tmp("no-alpha.json");
  std::ofstream(path) << WriteContend(d);
  const Result r = Contentionfit({"fit", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Has(r.err,
                  "^contentionfit: error: no one-edge graph \\(a>b\\) "
                  "in the measurement: alpha comes from it, measure it "
                  "with the other graphs\n$"))
      << r.err;
}

}  // namespace
}  // namespace verbsemu::contention
