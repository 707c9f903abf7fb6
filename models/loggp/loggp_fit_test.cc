#include "models/loggp/loggp_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/loggp/internal/loggp_synth.h"

namespace verbsemu::fit {
namespace {

constexpr int kSeeds = 400;

synth::Truth TwoSegments(double noise, unsigned seed) {
  synth::Truth t;
  t.sizes = synth::PowersOfTwo(1, 65536);
  // An eager protocol up to 4 KiB, then one with a larger g, smaller G.
  t.segments = {{1, 1500, 0.5}, {8192, 3000, 0.25}};
  t.noise = noise;
  t.seed = seed;
  return t;
}

synth::Truth OneSegment(double noise, unsigned seed) {
  synth::Truth t = TwoSegments(noise, seed);
  t.segments = {{1, 1500, 0.5}};
  return t;
}

LoggpAnalysis Analyze(const synth::Truth& t, LoggpFitOptions options = {}) {
  return AnalyzeLoggp(ParseLoggp(synth::Run(t), LoggpStat::kMedian), options);
}

bool Covers(const Estimate& e, double truth) {
  return std::fabs(e.value - truth) <= e.half95;
}

TEST(LoggpFit, RecoversTwoSegmentsAndTheirBreakpoint) {
  int split_right = 0, g1 = 0, big_g1 = 0, g2 = 0, big_g2 = 0;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    const synth::Truth t = TwoSegments(0.01, seed);
    const LoggpAnalysis a = Analyze(t);
    ASSERT_TRUE(a.identified()) << a.not_identified;
    if (a.segments.size() != 2 || a.segments[1].size_lo != 8192 ||
        a.segments[0].size_hi != 4096) {
      continue;
    }
    ++split_right;
    g1 += Covers(a.segments[0].g, 1500);
    big_g1 += Covers(a.segments[0].big_g, 0.5);
    g2 += Covers(a.segments[1].g, 3000);
    big_g2 += Covers(a.segments[1].big_g, 0.25);
  }
  // Measured at these seeds: 390 of 400 split at 4096|8192 (the other 10
  // add a third segment that passes the F-test at 0.05/12 too: the rule's
  // stated 5% rate), each 95% interval covering its truth in 369..373 of
  // those 390.
  EXPECT_GE(split_right, kSeeds * 95 / 100);
  for (int covered : {g1, big_g1, g2, big_g2}) {
    EXPECT_GE(covered, split_right * 90 / 100);
  }
}

// Whether AICc alone (its lowest candidate) would split.
bool AiccAloneSplits(const LoggpAnalysis& a) {
  const auto lowest = std::min_element(
      a.candidates.begin(), a.candidates.end(),
      [](const auto& l, const auto& r) { return l.aicc < r.aicc; });
  return lowest != a.candidates.end() && lowest->segments > 1;
}

TEST(LoggpFit, DoesNotSplitASingleSegment) {
  int single = 0, covered = 0, aicc_alone_split = 0;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    const LoggpAnalysis a = Analyze(OneSegment(0.01, seed));
    ASSERT_TRUE(a.identified());
    aicc_alone_split += AiccAloneSplits(a);
    if (a.segments.size() != 1) continue;
    ++single;
    covered += Covers(a.segments[0].big_g, 0.5);
  }
  // AICc alone split a straight line in 46 of 400 seeds (the breakpoint
  // is the best of 12 places yet costs one parameter); with the F-test at
  // 0.05/12 as well: 388 of 400 kept whole (12 splits, within the 5%
  // stated), G covered in 372 of those.
  EXPECT_GE(single, kSeeds * 95 / 100);
  EXPECT_GE(covered, single * 90 / 100);
  // The F-test is what keeps them whole.
  EXPECT_GT(aicc_alone_split, kSeeds - single);
}

TEST(LoggpFit, SplitAlphaIsTheFTestLevelOverTheBreakpointPlaces) {
  const synth::Truth t = TwoSegments(0.01, 1);
  const LoggpAnalysis a = Analyze(t);
  ASSERT_EQ(a.segments.size(), 2u);
  EXPECT_EQ(a.split_positions, 12u);  // 17 sizes, 3 on each side
  EXPECT_DOUBLE_EQ(a.split_level, 0.05 / 12);
  ASSERT_GE(a.candidates.size(), 2u);
  EXPECT_TRUE(std::isnan(a.candidates[0].split_p));
  const double p = a.candidates[1].split_p;
  ASSERT_LT(p, a.split_level);
  ASSERT_GT(p, 0);
  // A level just below the split's p refuses it, one above keeps it; the
  // candidates are reported either way.
  const LoggpAnalysis below = Analyze(t, {.split_alpha = p * 12 / 2});
  EXPECT_EQ(below.segments.size(), 1u);
  EXPECT_EQ(below.candidates.size(), a.candidates.size());
  EXPECT_EQ(Analyze(t, {.split_alpha = p * 12 * 2}).segments.size(), 2u);
}

TEST(LoggpFit, MaxSegmentsBoundsTheSplit) {
  const LoggpAnalysis a = Analyze(TwoSegments(0, 1), {.max_segments = 1});
  EXPECT_EQ(a.segments.size(), 1u);
  EXPECT_EQ(a.candidates.size(), 1u);
}

TEST(LoggpFit, RecoversLPerSizeAndTheParametersOfExactData) {
  const synth::Truth t = TwoSegments(0, 1);
  const LoggpAnalysis a = Analyze(t);
  ASSERT_EQ(a.segments.size(), 2u);
  EXPECT_NEAR(a.segments[0].g.value, 1500, 1e-6);
  EXPECT_NEAR(a.segments[1].big_g.value, 0.25, 1e-9);
  EXPECT_NEAR(a.segments[1].bandwidth_gbs, 4, 1e-6);
  ASSERT_EQ(a.sizes.size(), t.sizes.size());
  for (const LoggpSize& s : a.sizes) {
    EXPECT_TRUE(s.in_fit);
    EXPECT_NEAR(s.latency, t.latency, 1e-6) << "size " << s.point.size;
    EXPECT_NEAR(s.point.o_s, t.os, 1e-6);
    EXPECT_NEAR(s.point.o_r, t.o_r, 1e-9);
    EXPECT_NEAR(s.rel_residual, 0, 1e-9);
    EXPECT_TRUE(s.flags.empty()) << s.flags.front();
  }
}

TEST(LoggpFit, LeavesSenderBoundSizesOutOfTheGapFit) {
  synth::Truth t = OneSegment(0, 1);
  t.os = 3000;  // above g + (s-1)G up to s = 3001: 1..2048 sender-bound
  const LoggpAnalysis a = Analyze(t);
  ASSERT_TRUE(a.identified()) << a.not_identified;
  ASSERT_EQ(a.segments.size(), 1u);
  EXPECT_EQ(a.segments[0].size_lo, 4096);
  EXPECT_NEAR(a.segments[0].g.value, 1500, 1e-6);
  EXPECT_NEAR(a.segments[0].big_g.value, 0.5, 1e-9);
  for (const LoggpSize& s : a.sizes) {
    const bool bound = s.point.size <= 2048;
    EXPECT_EQ(s.in_fit, !bound) << s.point.size;
    EXPECT_EQ(s.point.sender_bound, bound) << s.point.size;
    EXPECT_EQ(s.nearest_segment, bound) << s.point.size;
    EXPECT_EQ(s.excluded.empty(), !bound) << s.point.size;
    // L needs o_s and G only, both known: it holds for excluded sizes too.
    EXPECT_NEAR(s.latency, t.latency, 1e-6) << s.point.size;
  }
}

TEST(LoggpFit, AllSenderBoundIsNotIdentified) {
  synth::Truth t = OneSegment(0, 1);
  t.os = 1e6;
  const LoggpAnalysis a = Analyze(t);
  EXPECT_FALSE(a.identified());
  EXPECT_NE(a.not_identified.find("0 of 17 sizes"), std::string::npos)
      << a.not_identified;
  EXPECT_TRUE(a.segments.empty());
  for (const LoggpSize& s : a.sizes) {
    EXPECT_FALSE(s.in_fit);
    EXPECT_TRUE(std::isnan(s.latency));
    EXPECT_TRUE(std::isnan(s.fitted_gap));
  }
}

TEST(LoggpFit, FlagsADelayShorterThanTheGap) {
  synth::Truth t = OneSegment(0, 1);
  t.latency = -1000;  // PRTT(1,0,s), verbsbench's d, below the gap
  const LoggpAnalysis a = Analyze(t);
  const auto& flags = a.sizes.front().flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), "o_s not valid: d < gap"),
            flags.end());
}

}  // namespace
}  // namespace verbsemu::fit
