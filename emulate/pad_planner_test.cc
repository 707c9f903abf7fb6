#include "emulate/pad_planner.h"

#include <gtest/gtest.h>

namespace verbsemu::emulate {
namespace {

TEST(PadPlannerTest, DisabledAtFullSpeed) {
  PadPlanner p(1.0, 65536, 1024);
  EXPECT_FALSE(p.enabled());
  EXPECT_EQ(p.OnData(1 << 20), 0u);
}

TEST(PadPlannerTest, LargeMessagePaddedBeforeIt) {
  // 50% target: one byte of padding per byte of data.
  PadPlanner p(2.0, 65536, 1024);
  EXPECT_EQ(p.OnData(1 << 20), 1024u);
  EXPECT_DOUBLE_EQ(p.owed_bytes(), 0);
}

TEST(PadPlannerTest, SmallMessagesBatchUntilThreshold) {
  PadPlanner p(2.0, 65536, 1024);
  uint64_t sent = 0;
  int first_batch_at = -1;
  for (int i = 0; i < 64; ++i) {
    const uint64_t n = p.OnData(1024);
    if (n > 0 && first_batch_at < 0) first_batch_at = i;
    sent += n;
  }
  EXPECT_EQ(first_batch_at, 63);  // 64 KiB of padding owed after 64 messages
  EXPECT_EQ(sent, 64u);
}

TEST(PadPlannerTest, RemainderCarriesSoTotalIsExact) {
  // 75% target: ratio 4/3, a third of a byte per byte.
  PadPlanner p(4.0 / 3.0, 65536, 1000);
  uint64_t dgrams = 0;
  const uint64_t kMsg = 100000;
  for (int i = 0; i < 300; ++i) dgrams += p.OnData(kMsg);
  const double expected = 300.0 * kMsg / 3.0;
  const double sent = static_cast<double>(dgrams) * 1000;
  EXPECT_LE(expected - sent, 1000.0);
  EXPECT_GE(expected - sent, 0.0);
  EXPECT_NEAR(p.owed_bytes(), expected - sent, 1e-3);
}

TEST(PadPlannerTest, TenPercentTargetNeedsNineTimesTheData) {
  PadPlanner p(10.0, 65536, 4096);
  EXPECT_EQ(p.OnData(4096 * 100), 900u);
}

}  // namespace
}  // namespace verbsemu::emulate
