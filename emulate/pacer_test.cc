#include "emulate/pacer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace verbsemu::emulate {
namespace {

TEST(PacerTest, DisabledReleasesImmediately) {
  Pacer p(0, 0, 0);
  EXPECT_FALSE(p.enabled());
  EXPECT_EQ(p.Reserve(1234, 1 << 20), 1234u);
}

TEST(PacerTest, BackToBackReleasesAtTargetRate) {
  // 1 byte per tick, infinitely fast real link.
  Pacer p(1.0, 0, 0);
  EXPECT_EQ(p.Reserve(0, 1000), 1000u);
  EXPECT_EQ(p.Reserve(0, 1000), 2000u);
  EXPECT_EQ(p.Reserve(10, 500), 2500u);
}

TEST(PacerTest, RealLinkTimeIsSubtracted) {
  // Target 1 B/tick, real 4 B/tick: 1000 bytes take 250 ticks on the real
  // link, so release 750 ticks after the start.
  Pacer p(1.0, 4.0, 0);
  EXPECT_EQ(p.Reserve(0, 1000), 750u);
  EXPECT_EQ(p.Reserve(0, 1000), 1750u);
}

TEST(PacerTest, ALeadBeforeTheReleaseIsWhenTheMessageStarted) {
  // As above: released 750 ticks after it started; the second started when
  // the first's 1000 ticks on the virtual link ended.
  Pacer p(1.0, 4.0, 0);
  EXPECT_EQ(p.LeadTicks(1000), 750u);
  EXPECT_EQ(p.Reserve(0, 1000) - p.LeadTicks(1000), 0u);
  EXPECT_EQ(p.Reserve(0, 1000) - p.LeadTicks(1000), 1000u);
  EXPECT_EQ(Pacer(1.0, 0, 0).LeadTicks(300), 300u);
  EXPECT_EQ(Pacer(0, 0, 0).LeadTicks(300), 0u);
}

TEST(PacerTest, AnIdleLinkLendsNothing) {
  // A burst after an idle stretch leaves at the link's rate from its first
  // message, as on a wire (an idle link that lent two messages made every
  // bursty phase fast).
  Pacer p(1.0, 0, 0);
  EXPECT_EQ(p.Reserve(0, 100), 100u);
  EXPECT_EQ(p.Reserve(10000, 100), 10100u);
  EXPECT_EQ(p.Reserve(10000, 100), 10200u);
  EXPECT_EQ(p.Reserve(10000, 100), 10300u);
}

TEST(PacerTest, LateSenderCatchesUpWithinBurst) {
  // 1 byte per tick, 10-byte messages, burst 50 ticks: a post 30 ticks late
  // keeps the link's schedule.
  Pacer p(1.0, 0, 0, 50);
  EXPECT_EQ(p.Reserve(0, 10), 10u);
  EXPECT_EQ(p.Reserve(40, 10), 40u);  // due at 20, late: released at once
  EXPECT_EQ(p.Reserve(40, 10), 40u);  // due at 30
  EXPECT_EQ(p.Reserve(40, 10), 40u);  // due at 40
  EXPECT_EQ(p.Reserve(40, 10), 50u);  // on schedule again
  // Further behind than the burst: the link was idle, and lends nothing.
  EXPECT_EQ(p.Reserve(10000, 10), 10010u);
  EXPECT_EQ(p.Reserve(10000, 10), 10020u);
}

TEST(PacerTest, CatchUpWindowIsAtLeastTwoMessages) {
  // No configured burst: a sender one message late still catches up.
  Pacer p(1.0, 0, 0, 0);
  EXPECT_EQ(p.Reserve(0, 100), 100u);
  EXPECT_EQ(p.Reserve(250, 100), 250u);  // due at 200, 50 late
  EXPECT_EQ(p.Reserve(250, 100), 300u);  // the schedule held
}

TEST(PacerTest, AQueuedSenderGetsNoCreditFromAnIdleLink) {
  // A train posted after an idle stretch leaves at the link's rate from its
  // first message: 8 messages of 100 ticks end 800 ticks after the post.
  Pacer p(1.0, 0, 0, 50);
  EXPECT_EQ(p.Reserve(0, 100, Pacer::Sender::kQueued), 100u);
  for (uint64_t i = 1; i <= 8; ++i) {
    EXPECT_EQ(p.Reserve(10000, 100, Pacer::Sender::kQueued), 10000 + 100 * i);
  }
  // Back to back, a queued sender keeps the schedule as a blocking one does.
  EXPECT_EQ(p.Reserve(10050, 100, Pacer::Sender::kQueued), 10900u);
}

TEST(PacerTest, FractionalCostsAccumulateExactly) {
  // 64-byte messages at 3 bytes per tick: 21.33 ticks each.
  Pacer p(3.0, 0, 0);
  uint64_t last = 0;
  for (int i = 0; i < 3000; ++i) last = p.Reserve(0, 64);
  EXPECT_NEAR(static_cast<double>(last), 3000 * 64 / 3.0, 1.0);
}

TEST(PacerTest, ThreadsShareTheLink) {
  Pacer p(2.0, 0, 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&p] {
      for (int i = 0; i < 1000; ++i) p.Reserve(1000, 200);
    });
  }
  for (auto& t : threads) t.join();
  // 4000 reservations of 100 ticks each, starting at the epoch.
  EXPECT_EQ(p.Reserve(1000, 0), 1000u + 400000u);
}

// Two pacers over one schedule, as two processes pacing on one NIC port:
// together they get the target rate, not each.
TEST(PacerTest, PacersSharingAScheduleShareTheRate) {
  PacerState link;
  const uint64_t start = 1'000'000;  // TSC ticks
  Pacer a(1.0, 0, 0, link, start - 5000);
  Pacer b(1.0, 0, 0, link, start);  // made later: takes a's epoch
  uint64_t last = 0;
  for (int i = 0; i < 100; ++i) {
    last = a.Reserve(start, 1000);
    last = b.Reserve(start, 1000);
  }
  EXPECT_EQ(last, start + 200 * 1000);  // an idle link lends nothing
  // One of them stops (its process died): the other keeps the whole rate
  // from where the link is, neither stalled nor given a burst.
  const uint64_t t = last;
  EXPECT_EQ(b.Reserve(t, 1000), t + 1000);
  EXPECT_EQ(b.Reserve(t, 1000), t + 2000);
}

TEST(PacerTest, SharedScheduleKeepsFractionalCosts) {
  // 64-byte messages at 3 bytes per tick, in the shared link's 1/64 tick.
  PacerState link;
  const uint64_t start = uint64_t{1} << 62;  // a TSC that began far from 0
  Pacer p(3.0, 0, 0, link, start);
  uint64_t last = 0;
  for (int i = 0; i < 3000; ++i) last = p.Reserve(start, 64);
  // A new link: the first message crosses it from its first use on. Each
  // cost rounds to 1/64 tick: within 0.05% over the run.
  const double expected = 3000 * 64 / 3.0;
  EXPECT_NEAR(static_cast<double>(last - start), expected, expected * 5e-4);
}

TEST(PacerTest, AHostileScheduleIsResetAndCounted) {
  // Another user's (or a stale file's) free_at years ahead: reset to now,
  // and the post goes at the target rate instead of waiting for it.
  PacerState link;
  std::atomic<uint64_t> resets{0};
  const uint64_t start = 1'000'000;
  Pacer p(1.0, 0, 0, link, start, /*max_ahead_ticks=*/100'000, &resets);
  link.free_at.store(uint64_t{1} << 62);
  EXPECT_EQ(p.Reserve(start + 10, 1000), start + 10 + 1000);
  EXPECT_EQ(resets.load(), 1u);
  // A real backlog within the bound is kept.
  for (int i = 0; i < 50; ++i) p.Reserve(start + 10, 1000);
  EXPECT_EQ(p.Reserve(start + 10, 1000), start + 10 + 52 * 1000);
  EXPECT_EQ(resets.load(), 1u);
}

TEST(PacerTest, AnEpochAfterNowIsRebased) {
  // The link was first used at a TSC far beyond this one (the TSC went
  // backwards: a reboot under a kept segment file): re-based at now.
  PacerState link;
  link.epoch.store(uint64_t{1} << 50);
  link.free_at.store(uint64_t{1} << 40);
  std::atomic<uint64_t> resets{0};
  const uint64_t now = 5'000;
  Pacer p(1.0, 0, 0, link, now, /*max_ahead_ticks=*/100'000, &resets);
  EXPECT_EQ(link.epoch.load(), now);
  EXPECT_EQ(resets.load(), 1u);
  EXPECT_EQ(p.Reserve(now, 1000), now + 1000);
}

TEST(PacerTest, ATscThatGoesBackwardsLaterIsRebasedAtTheReservation) {
  // The TSC went backwards after the pacer was made (a migrated VM): the
  // next reservation re-bases the link instead of waiting for the old time.
  PacerState link;
  std::atomic<uint64_t> resets{0};
  const uint64_t start = uint64_t{1} << 40;
  Pacer p(1.0, 0, 0, link, start, /*max_ahead_ticks=*/100'000, &resets);
  Pacer q(1.0, 0, 0, link, start, 100'000, &resets);  // another process's
  EXPECT_EQ(p.Reserve(start, 1000), start + 1000);
  const uint64_t now = 5'000;
  EXPECT_EQ(p.Reserve(now, 1000), now + 1000);
  EXPECT_EQ(link.epoch.load(), now);
  EXPECT_EQ(resets.load(), 1u);
  // The other pacer takes the new epoch, and books after p.
  EXPECT_EQ(q.Reserve(now + 10, 500), now + 1500);
  EXPECT_EQ(resets.load(), 1u);
}

TEST(PacerTest, ALinkTooOldForTheFixedPointIsRebased) {
  // 2^53 ticks after its epoch (38 days at 2.4 GHz) a pacer's own link's
  // times would leave 64 bits: it is re-based, and keeps its rate.
  Pacer p(1.0, 0, /*epoch=*/1, 0);
  const uint64_t now = uint64_t{1} << 53;
  EXPECT_EQ(p.Reserve(now, 1000), now + 1000);
  EXPECT_EQ(p.Reserve(now, 1000), now + 2000);
}

TEST(PacerTest, UnboundedWithoutAWindow) {
  // max_ahead 0 (the default): the schedule is trusted as it is.
  PacerState link;
  const uint64_t start = 1'000'000;
  Pacer p(1.0, 0, 0, link, start);
  link.free_at.store(64 * 500'000);  // 500,000 ticks ahead of the epoch
  EXPECT_EQ(p.Reserve(start, 1000), start + 501'000);
}

}  // namespace
}  // namespace verbsemu::emulate
