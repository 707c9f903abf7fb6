#include "shim/internal/wait_policy.h"

#include <gtest/gtest.h>

#include <vector>

#include "emulate/simulated_clock.h"

namespace verbsemu::shim::internal {
namespace {

WaitPolicy Policy() {
  WaitPolicy p;
  p.sleep_above_ticks = 250;
  p.spin_tail_ticks = 120;
  return p;
}

struct RecordingSleep {
  emulate::SimulatedClock* clock;
  std::vector<uint64_t>* slept;
  void operator()(uint64_t ticks) const {
    slept->push_back(ticks);
    clock->Advance(ticks);
  }
};

TEST(WaitPolicyTest, ShortWaitOnlySpins) {
  emulate::SimulatedClock clock(1000, 1);
  std::vector<uint64_t> slept;
  const uint64_t end =
      WaitUntil(clock, RecordingSleep{&clock, &slept}, Policy(), 1200);
  EXPECT_TRUE(slept.empty());
  EXPECT_EQ(end, 1200u);
  EXPECT_EQ(clock.relaxes(), 200u);
}

TEST(WaitPolicyTest, LongWaitSleepsThenSpinsTheTail) {
  emulate::SimulatedClock clock(1000, 1);
  std::vector<uint64_t> slept;
  const uint64_t end =
      WaitUntil(clock, RecordingSleep{&clock, &slept}, Policy(), 2000);
  ASSERT_EQ(slept.size(), 1u);
  EXPECT_EQ(slept[0], 1000u - 120u);
  EXPECT_EQ(end, 2000u);
  EXPECT_EQ(clock.relaxes(), 120u);  // the tail is spun
}

TEST(WaitPolicyTest, OversleepStillEndsAtOrAfterDeadline) {
  emulate::SimulatedClock clock(0, 1);
  std::vector<uint64_t> slept;
  auto late_sleep = [&](uint64_t ticks) {
    slept.push_back(ticks);
    clock.Advance(ticks + 500);  // the kernel woke us late
  };
  const uint64_t end = WaitUntil(clock, late_sleep, Policy(), 1000);
  EXPECT_EQ(slept.size(), 1u);
  EXPECT_GE(end, 1000u);
  EXPECT_EQ(clock.relaxes(), 0u);
}

TEST(WaitPolicyTest, PastDeadlineReturnsAtOnce) {
  emulate::SimulatedClock clock(5000, 1);
  std::vector<uint64_t> slept;
  EXPECT_EQ(WaitUntil(clock, RecordingSleep{&clock, &slept}, Policy(), 10),
            5000u);
  EXPECT_TRUE(slept.empty());
  EXPECT_EQ(clock.relaxes(), 0u);
}

TEST(WaitPolicyTest, DefaultPolicyNeverSleeps) {
  emulate::SimulatedClock clock(0, 1000);
  std::vector<uint64_t> slept;
  WaitUntil(clock, RecordingSleep{&clock, &slept}, WaitPolicy{}, 1'000'000);
  EXPECT_TRUE(slept.empty());
}

}  // namespace
}  // namespace verbsemu::shim::internal
