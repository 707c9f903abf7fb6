#include "emulate/gap_clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace verbsemu::emulate {
namespace {

TEST(GapClockTest, PostsFasterThanTheGapStartOneGapApart) {
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 1000, 50), 1000u);
  EXPECT_EQ(ReserveGap(next, 1001, 50), 1050u);
  EXPECT_EQ(ReserveGap(next, 1002, 50), 1100u);
}

TEST(GapClockTest, PostsSlowerThanTheGapAreNotHeld) {
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 1000, 50), 1000u);
  EXPECT_EQ(ReserveGap(next, 2000, 50), 2000u);
}

TEST(GapClockTest, AChainOfMessagesReservesOneGapEach) {
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 1000, 4 * 50), 1000u);
  EXPECT_EQ(ReserveGap(next, 1000, 50), 1200u);
}

TEST(GapClockTest, ALateWakeUpKeepsTheSchedule) {
  std::atomic<uint64_t> next{0};
  ReserveGap(next, 1000, 50);
  // The second post was due at 1050 and is reserved then, whenever the
  // thread actually wakes: the third is due at 1100, not 50 after a late
  // wake-up.
  EXPECT_EQ(ReserveGap(next, 1010, 50), 1050u);
  EXPECT_EQ(ReserveGap(next, 1090, 50), 1100u);
}

TEST(GapClockTest, ASenderHeldUpWithinTheBurstCatchesUp) {
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 1000, 50, 100), 1000u);
  // Due at 1050, held up until 1120 (70 behind, within the burst): it owes
  // the slots 1050 and 1100, which go at once, then the schedule holds.
  EXPECT_EQ(ReserveGap(next, 1120, 50, 100), 1120u);
  EXPECT_EQ(ReserveGap(next, 1120, 50, 100), 1120u);
  EXPECT_EQ(ReserveGap(next, 1120, 50, 100), 1150u);
}

TEST(GapClockTest, ASenderFurtherBehindThanTheBurstStartsAgainAtNow) {
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 1000, 50, 100), 1000u);
  // Due at 1050, back at 1200: 150 behind, more than the burst: the
  // schedule was idle and lends nothing.
  EXPECT_EQ(ReserveGap(next, 1200, 50, 100), 1200u);
  EXPECT_EQ(next.load(), 1250u);
  EXPECT_EQ(ReserveGap(next, 1200, 50, 100), 1250u);
}

TEST(GapClockTest, AnIdleScheduleLendsNothing) {
  // A burst after an idle stretch keeps the rate from its first message.
  std::atomic<uint64_t> next{0};
  EXPECT_EQ(ReserveGap(next, 10'000, 50, 100), 10'000u);
  EXPECT_EQ(ReserveGap(next, 10'000, 50, 100), 10'050u);
  EXPECT_EQ(ReserveGap(next, 10'000, 50, 100), 10'100u);
}

TEST(GapClockTest, AScheduleBookedImplausiblyFarAheadStartsAgainAtNow) {
  std::atomic<uint64_t> next{uint64_t{1} << 60};
  EXPECT_EQ(ReserveGap(next, 1000, 50, 0, 1'000'000), 1000u);
  EXPECT_EQ(next.load(), 1050u);
  std::atomic<uint64_t> unbounded{5000};
  EXPECT_EQ(ReserveGap(unbounded, 1000, 50), 5000u);
}

TEST(GapClockTest, ThreadsSharingOneScheduleNeverStartWithinAGap) {
  std::atomic<uint64_t> next{0};
  constexpr int kThreads = 4, kEach = 2000;
  std::vector<std::vector<uint64_t>> starts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&next, &starts, t] {
      for (int i = 0; i < kEach; ++i) {
        starts[t].push_back(ReserveGap(next, 100, 7));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<uint64_t> all;
  for (const auto& s : starts) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) EXPECT_EQ(all[i] - all[i - 1], 7u);
}

}  // namespace
}  // namespace verbsemu::emulate
