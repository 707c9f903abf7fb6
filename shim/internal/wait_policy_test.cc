#include "shim/internal/wait_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "emulate/simulated_clock.h"

namespace verbsemu::shim::internal {
namespace {

class Policy : public WaitPolicy {
 public:
  Policy() {
    sleep_above_ticks = 250;
    spin_tail_ticks = 120;
  }
};

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
  Policy policy;
  const uint64_t end =
      WaitUntil(clock, RecordingSleep{&clock, &slept}, policy, 1200);
  EXPECT_TRUE(slept.empty());
  EXPECT_EQ(end, 1200u);
  EXPECT_EQ(clock.relaxes(), 200u);
}

TEST(WaitPolicyTest, LongWaitSleepsThenSpinsTheTail) {
  emulate::SimulatedClock clock(1000, 1);
  std::vector<uint64_t> slept;
  Policy policy;
  const uint64_t end =
      WaitUntil(clock, RecordingSleep{&clock, &slept}, policy, 2000);
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
  Policy policy;
  const uint64_t end = WaitUntil(clock, late_sleep, policy, 1000);
  EXPECT_EQ(slept.size(), 1u);
  EXPECT_GE(end, 1000u);
  EXPECT_EQ(clock.relaxes(), 0u);
}

TEST(WaitPolicyTest, PastDeadlineReturnsAtOnce) {
  emulate::SimulatedClock clock(5000, 1);
  std::vector<uint64_t> slept;
  Policy policy;
  EXPECT_EQ(WaitUntil(clock, RecordingSleep{&clock, &slept}, policy, 10),
            5000u);
  EXPECT_TRUE(slept.empty());
  EXPECT_EQ(clock.relaxes(), 0u);
}

TEST(WaitPolicyTest, DefaultPolicyNeverSleeps) {
  emulate::SimulatedClock clock(0, 1000);
  std::vector<uint64_t> slept;
  WaitPolicy never;
  WaitUntil(clock, RecordingSleep{&clock, &slept}, never, 1'000'000);
  EXPECT_TRUE(slept.empty());
}

// A late wake lengthens the spun tail by twice the lateness, so the next
// wait of the same length does not sleep at all, and a longer one sleeps
// short enough to wake in time even if the kernel is as late again.
TEST(WaitPolicyTest, LateWakeLengthensTheTail) {
  emulate::SimulatedClock clock(0, 1);
  std::vector<uint64_t> slept;
  Policy policy;
  auto late_sleep = [&](uint64_t ticks) {
    slept.push_back(ticks);
    clock.Advance(ticks + 500);
  };
  WaitUntil(clock, late_sleep, policy, 1000);
  ASSERT_EQ(slept.size(), 1u);
  EXPECT_EQ(policy.late_ticks.load(), 500u);
  EXPECT_EQ(policy.TailTicks(), 120u + 1000u);

  uint64_t start = clock.Now();
  uint64_t end = WaitUntil(clock, late_sleep, policy, start + 1000);
  EXPECT_EQ(slept.size(), 1u);  // spun: 1000 is within the tail
  EXPECT_EQ(end, start + 1000);

  start = clock.Now();
  end = WaitUntil(clock, late_sleep, policy, start + 3000);
  ASSERT_EQ(slept.size(), 2u);
  EXPECT_EQ(slept[1], 3000u - 1120u);
  EXPECT_EQ(end, start + 3000);  // woke 500 late, still before the deadline
}

TEST(WaitPolicyTest, TimelyWakesShortenTheTailAgain) {
  emulate::SimulatedClock clock(0, 1);
  std::vector<uint64_t> slept;
  Policy policy;
  policy.late_ticks = 1600;
  for (int i = 0; i < 40; ++i) {
    const uint64_t start = clock.Now();
    WaitUntil(clock, RecordingSleep{&clock, &slept}, policy, start + 100'000);
  }
  EXPECT_EQ(slept.size(), 40u);
  EXPECT_LT(policy.late_ticks.load(), 1600u / 8);
  EXPECT_GT(policy.late_ticks.load(), 0u);  // never forgotten at once
}

// One wake seconds late (a SIGSTOP, a paused VM) counts for at most
// max_late_ticks: later long waits still sleep, instead of spinning whole
// for the life of the process.
TEST(WaitPolicyTest, OneVeryLateWakeDoesNotPinTheSpin) {
  emulate::SimulatedClock clock(0, 1);
  std::vector<uint64_t> slept;
  Policy policy;
  policy.max_late_ticks = 2'000;
  bool stopped = true;
  auto sleep = [&](uint64_t ticks) {
    slept.push_back(ticks);
    clock.Advance(ticks + (stopped ? 5'000'000'000 : 0));
    stopped = false;
  };
  WaitUntil(clock, sleep, policy, 1000);
  EXPECT_EQ(policy.late_ticks.load(), 2'000u);
  const uint64_t start = clock.Now();
  EXPECT_EQ(WaitUntil(clock, sleep, policy, start + 10'000), start + 10'000);
  ASSERT_EQ(slept.size(), 2u) << "the second wait spun whole";
  EXPECT_EQ(slept[1], 10'000u - 120u - 4'000u);
}

TEST(WaitPolicyTest, SleepsOnlyBeyondThresholdPlusLateness) {
  Policy policy;
  EXPECT_EQ(policy.SleepTicks(250), 0u);
  EXPECT_EQ(policy.SleepTicks(251), 251u - 120u);
  policy.late_ticks = 100;
  EXPECT_EQ(policy.SleepTicks(450), 0u);
  EXPECT_EQ(policy.SleepTicks(451), 451u - 320u);
  // A tail longer than the threshold (sleep_above < spin_tail) never
  // underflows into a huge sleep.
  policy.sleep_above_ticks = 50;
  policy.late_ticks = 0;
  EXPECT_EQ(policy.SleepTicks(100), 0u);
}

// The same time read without pausing: one tick per read.
struct Unpaused {
  emulate::SimulatedClock* clock;
  uint64_t Now() { return clock->Now(); }
  void Relax() { clock->Advance(1); }
};

// A paused spin reads the clock every 29 ticks here: a wait spun paused to
// its end overshoots by what its length leaves of the last pause; with an
// unpaused tail longer than a pause it ends at its deadline.
TEST(WaitPolicyTest, TheLastStretchIsSpunWithoutPausing) {
  for (const uint64_t deadline : {1000u, 1010u, 1020u}) {
    SCOPED_TRACE(deadline);
    emulate::SimulatedClock clock(0, 29);
    Unpaused tight{&clock};
    std::vector<uint64_t> slept;
    WaitPolicy policy;  // never sleeps
    policy.tight_tail_ticks = 100;
    EXPECT_EQ(WaitUntil(clock, tight, RecordingSleep{&clock, &slept}, policy,
                        deadline),
              deadline);
    emulate::SimulatedClock paused(0, 29);
    Unpaused same{&paused};
    policy.tight_tail_ticks = 0;
    EXPECT_EQ(WaitUntil(paused, same, RecordingSleep{&paused, &slept}, policy,
                        deadline),
              (deadline + 28) / 29 * 29);
    EXPECT_TRUE(slept.empty());
  }
}

// Waits started in a fixed rhythm against a clock read every 24 ticks: each
// deadline phase has its own lateness (0 to 23 ticks) without the dither;
// with it, every phase is late by the same on average: 23 ticks, half the
// dither's and half the reads'. The fixed cost takes that back.
TEST(WaitPolicyTest, ADitheredDeadlineIsAsLateAtEveryPhase) {
  std::mt19937 rng(7);
  double least = 1e9, most = 0, least_fixed = 1e9, most_fixed = 0;
  for (uint64_t phase = 0; phase < 24; ++phase) {
    WaitPolicy policy;
    policy.dither_ticks = 24;
    WaitPolicy fixed;
    double late = 0, late_fixed = 0;
    const int n = 4800;
    for (int i = 0; i < n; ++i) {
      std::vector<uint64_t> slept;
      emulate::SimulatedClock clock(0, 24);
      const uint64_t deadline = 1000 + phase;
      late += static_cast<double>(
          WaitUntil(clock, RecordingSleep{&clock, &slept}, policy,
                    policy.Dithered(deadline, static_cast<uint32_t>(rng()))) -
          deadline);
      emulate::SimulatedClock same(0, 24);
      late_fixed += static_cast<double>(
          WaitUntil(same, RecordingSleep{&same, &slept}, fixed,
                    fixed.Dithered(deadline, static_cast<uint32_t>(rng()))) -
          deadline);
    }
    least = std::min(least, late / n), most = std::max(most, late / n);
    least_fixed = std::min(least_fixed, late_fixed / n);
    most_fixed = std::max(most_fixed, late_fixed / n);
  }
  EXPECT_NEAR(least, 23, 0.5);
  EXPECT_NEAR(most, 23, 0.5);
  EXPECT_EQ(least_fixed, 0);
  EXPECT_EQ(most_fixed, 23);
}

}  // namespace
}  // namespace verbsemu::shim::internal
