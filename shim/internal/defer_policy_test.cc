#include "shim/internal/defer_policy.h"

#include <gtest/gtest.h>

namespace verbsemu::shim::internal {
namespace {

// One tick a nanosecond keeps the figures readable.
constexpr DeferPolicy::Ticks kTicks{
    .grace_step = 10'000, .max_grace = 4'000'000, .yield = 1'000};

TEST(DeferPolicyTest, StartsAimingAtTheDueTimePlusTheYield) {
  DeferPolicy p(kTicks);
  EXPECT_EQ(p.grace(), 0u);
  EXPECT_EQ(p.offset(), 1'000u);
  EXPECT_EQ(p.NextLook(100, 50'000, false, 0), 51'000u);
}

TEST(DeferPolicyTest, WakesTheApplicationHandledDoubleTheGraceUpToTheCap) {
  DeferPolicy p(kTicks);
  const uint64_t expected[] = {10'000, 30'000, 70'000, 150'000};
  for (uint64_t g : expected) {
    p.Learn(0);
    EXPECT_EQ(p.grace(), g);
  }
  for (int i = 0; i < 20; ++i) p.Learn(0);
  EXPECT_EQ(p.grace(), 4'000'000u);
  EXPECT_EQ(p.offset(), 4'000'000u);
}

TEST(DeferPolicyTest, PostsTheThreadHadToHandOverQuarterTheGrace) {
  DeferPolicy p(kTicks);
  for (int i = 0; i < 20; ++i) p.Learn(0);
  p.Learn(3);
  EXPECT_EQ(p.grace(), 1'000'000u);
  p.Learn(1);
  p.Learn(1);
  EXPECT_EQ(p.grace(), 62'500u);
  p.Learn(1);
  EXPECT_EQ(p.grace(), 15'625u);
  p.Learn(1);  // below one step: none
  EXPECT_EQ(p.grace(), 0u);
  EXPECT_EQ(p.offset(), 1'000u);
}

// A polling application hands its posts over: the thread, holding nothing,
// keeps looking once per grace rather than being woken by each post; when
// the hand-overs stop it looks kIdleLooks more times, then sleeps.
TEST(DeferPolicyTest, WatchesWhileHandOversGoOnThenSleeps) {
  DeferPolicy p(kTicks);
  p.Learn(0);  // grace 10 us
  uint64_t handed = 0, now = 0;
  for (int i = 0; i < 100; ++i) {
    now += 10'000;
    EXPECT_EQ(p.NextLook(now, kNoLook, false, ++handed), now + 10'000);
  }
  for (uint32_t i = 1; i <= DeferPolicy::kIdleLooks; ++i) {
    EXPECT_EQ(p.NextLook(now, kNoLook, false, handed), now + 10'000) << i;
  }
  EXPECT_EQ(p.NextLook(now, kNoLook, false, handed), kNoLook);
  EXPECT_EQ(p.NextLook(now, kNoLook, false, handed + 1), now + 10'000);
}

TEST(DeferPolicyTest, WithoutAGraceTheIdleThreadSleepsUntilWoken) {
  DeferPolicy p(kTicks);
  EXPECT_EQ(p.NextLook(0, kNoLook, false, 5), kNoLook);
}

// Posts left to an application call under way are overdue: the thread
// looks again one offset from now, not at their (past) due time.
TEST(DeferPolicyTest, PostsLeftToTheApplicationPushTheLookToOneOffset) {
  DeferPolicy p(kTicks);
  p.Learn(0);
  p.Learn(0);  // grace 30 us
  EXPECT_EQ(p.NextLook(100'000, 90'000, true, 0), 130'000u);
  EXPECT_EQ(p.NextLook(100'000, 200'000, true, 0), 230'000u);
}

TEST(DeferPolicyTest, APostWakesTheThreadOnlyWhenDueTwoOffsetsBeforeItsLook) {
  EXPECT_TRUE(DeferPolicy::PostWakes(100, 10, 121));
  EXPECT_FALSE(DeferPolicy::PostWakes(100, 10, 120));
  EXPECT_FALSE(DeferPolicy::PostWakes(100, 10, 50));  // overdue at its look
  EXPECT_FALSE(DeferPolicy::PostWakes(100, 10, 0));   // scanning: sees it
  EXPECT_TRUE(DeferPolicy::PostWakes(100, 10, kNoLook));
}

// The thread as DeferProgress::Run drives the policy, one post held at a
// time, in simulated time.
struct ThreadModel {
  explicit ThreadModel(DeferPolicy::Ticks t) : policy(t) {}
  // The thread looks at `now`: hands the held post over if due, learns
  // when its look aimed at a post, plans the next.
  void Look(uint64_t now) {
    ++looks;
    size_t by_thread = 0;
    if (held_due <= now) {
      by_thread = 1;
      Hand();
    }
    if (aimed_at_post) policy.Learn(by_thread);
    thread_handed += by_thread;
    look = policy.NextLook(now, held_due, false, handed);
    aimed_at_post = held_due != kNoLook;
  }
  void Post(uint64_t now, uint64_t due) {
    held_due = due;
    if (DeferPolicy::PostWakes(due, policy.offset(), look)) {
      ++post_wakes;
      Look(now);
    }
  }
  void RunUntil(uint64_t now) {
    while (look <= now) Look(look);
  }
  void Hand() {
    held_due = kNoLook;
    ++handed;
  }
  DeferPolicy policy;
  uint64_t look = kNoLook, held_due = kNoLook;
  bool aimed_at_post = false;
  uint64_t handed = 0, thread_handed = 0, looks = 0, post_wakes = 0;
};

// The sequence of a polling application: each post due 20 us after it is
// made and handed over by the application's poll 0.5 us after that. The
// thread's looks find nothing to do, its grace grows, and posts stop
// waking it (before, each post woke it: a futex wake and a thread switch
// per message).
TEST(DeferPolicyTest, APollingApplicationDoesNotWakeTheThreadPerPost) {
  ThreadModel m(kTicks);
  constexpr uint64_t kDelay = 20'000, kPosts = 2'000;
  uint64_t now = 0;
  for (uint64_t i = 0; i < kPosts; ++i) {
    m.Post(now, now + kDelay);
    now += kDelay + 500;
    m.RunUntil(now - 1);
    if (m.held_due <= now) m.Hand();
  }
  EXPECT_EQ(m.thread_handed, 0u);
  EXPECT_LT(m.post_wakes, 5u);
  EXPECT_LT(m.looks, kPosts / 20) << "grace " << m.policy.grace();
}

// An application that posts and then waits without a verbs call (an RDMA
// write's target spinning on memory): the thread hands each post over,
// aiming at its due time, and its grace stays at none.
TEST(DeferPolicyTest, AnApplicationThatDoesNotPollIsServedAtTheDueTime) {
  ThreadModel m(kTicks);
  constexpr uint64_t kDelay = 20'000, kPosts = 200;
  uint64_t now = 0;
  for (uint64_t i = 0; i < kPosts; ++i) {
    m.Post(now, now + kDelay);
    EXPECT_EQ(m.look, now + kDelay + kTicks.yield) << i;
    now += kDelay + 5'000;
    m.RunUntil(now);
  }
  EXPECT_EQ(m.thread_handed, kPosts);
  EXPECT_EQ(m.policy.grace(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
