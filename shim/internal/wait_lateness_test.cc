#include "shim/internal/wait_lateness.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace verbsemu::shim::internal {
namespace {

TEST(WaitLatenessTest, BucketsHoldTheirValuesWithin19Percent) {
  for (uint64_t v :
       {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{5},
        uint64_t{7}, uint64_t{8}, uint64_t{100}, uint64_t{1000},
        uint64_t{123456789}, (uint64_t{1} << 40) + 12345, UINT64_MAX}) {
    const int b = WaitLateness::BucketOf(v);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, WaitLateness::kBuckets);
    EXPECT_GE(WaitLateness::UpperEdge(b), v) << v;
    if (b > 0) {
      EXPECT_LT(WaitLateness::UpperEdge(b - 1), v) << v;
    }
    EXPECT_LE(static_cast<double>(WaitLateness::UpperEdge(b)),
              static_cast<double>(v) * 1.25 + 1)
        << v;
  }
}

TEST(WaitLatenessTest, BucketsAreContiguousAndIncreasing) {
  EXPECT_EQ(WaitLateness::BucketOf(UINT64_MAX), WaitLateness::kBuckets - 1);
  for (int b = 1; b < WaitLateness::kBuckets; ++b) {
    ASSERT_EQ(WaitLateness::BucketOf(WaitLateness::UpperEdge(b - 1) + 1), b)
        << b;
  }
}

TEST(WaitLatenessTest, QuantilesSeparateTheBodyFromALostCpuTail) {
  WaitLateness l;
  l.SetTailTicks(1000);
  // 990 spins late by about one iteration, 10 that lost the CPU for 50k.
  for (int i = 0; i < 990; ++i) l.Add(20'100, 100);
  for (int i = 0; i < 10; ++i) l.Add(70'000, 50'000);
  EXPECT_EQ(l.count(), 1000u);
  EXPECT_EQ(l.waited_ticks(), 990u * 20'100 + 10u * 70'000);
  EXPECT_EQ(l.sum_ticks(), 990u * 100 + 10u * 50'000);
  EXPECT_EQ(l.max_ticks(), 50'000u);
  const uint64_t p50 = l.QuantileTicks(0.5);
  EXPECT_GE(p50, 100u);
  EXPECT_LE(p50, 125u);
  EXPECT_LE(l.QuantileTicks(0.99), 125u);
  EXPECT_EQ(l.QuantileTicks(0.999), 50'000u);  // capped at the maximum
  EXPECT_EQ(l.tail_count(), 10u);
  EXPECT_EQ(l.tail_sum_ticks(), 500'000u);
  l.Reset();
  EXPECT_EQ(l.count(), 0u);
  EXPECT_EQ(l.waited_ticks(), 0u);
  EXPECT_EQ(l.QuantileTicks(0.5), 0u);
  EXPECT_EQ(l.tail_count(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
