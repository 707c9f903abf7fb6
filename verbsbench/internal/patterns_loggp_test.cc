// LogGP's PRTT trains and o_r (patterns.h's Prtt, TrainRecvOverhead and
// the peer's Train) on the fake wire.
#include <gtest/gtest.h>

#include "verbsbench/internal/patterns.h"
#include "verbsbench/internal/patterns_fakes.h"

namespace verbsbench::internal {
namespace {

// LogGP's trains on the wire: each post is kPostTicks of the root's CPU
// (o_s), the peer answers the n-th message. PRTT(1,0) is kWiredRound;
// back to back the posts pace the train (o_s >= the wire's gap, which is
// 0); with a delay d each further message costs o_s + d.
TEST_F(WiredTest, PrttTrainsArePacedByPostsOrByTheDelay) {
  StartWiredPeer();
  Patterns<FakePath> patterns = Make();
  const Message m{Op::kSend, 8, false};
  const Recorder one = patterns.Prtt(m, 1, 0, 50, 5);
  const Recorder train = patterns.Prtt(m, 4, 0, 50, 5);
  const Recorder delayed = patterns.Prtt(m, 4, 100, 50, 5);
  StopPeers();
  EXPECT_EQ(one.count(), 50u);
  EXPECT_DOUBLE_EQ(one.histogram().max(), kWiredRound);
  EXPECT_DOUBLE_EQ(train.histogram().min(), kWiredRound + 3 * kPostTicks);
  EXPECT_DOUBLE_EQ(train.histogram().max(), kWiredRound + 3 * kPostTicks);
  EXPECT_DOUBLE_EQ(delayed.histogram().max(),
                   kWiredRound + 3 * (kPostTicks + 100));
  // Every train's receives were posted again: one per message at the peer,
  // the reply's at the root, and the root reaped its sends after each.
  EXPECT_EQ(root_path_.posted, 55u * (1 + 4 + 4));
  EXPECT_EQ(root_path_.drained.size(), 55u * 3);
}

// o_r: the peer lets the train arrive, then retiring each message costs one
// receive's post (the fake poll is free once the message is there).
TEST_F(WiredTest, TrainRecvOverheadIsTimedByThePeerPerMessage) {
  StartWiredPeer();
  const Message m{Op::kSend, 8, false};
  const Recorder o_r = Make().TrainRecvOverhead(m, 8, 1000, 40, 4);
  StopPeers();
  EXPECT_EQ(o_r.count(), 40u);
  EXPECT_DOUBLE_EQ(o_r.histogram().min(), kRecvTicks);
  EXPECT_DOUBLE_EQ(o_r.histogram().max(), kRecvTicks);
}

// Settling too short to let the train arrive: the peer's timing holds the
// messages' spacing (the root's posts), which is why RunLoggp settles for a
// whole PRTT(n,0,s).
TEST_F(WiredTest, TrainRecvOverheadWithoutSettlingSeesTheTrainsSpacing) {
  StartWiredPeer();
  const Message m{Op::kSend, 8, false};
  const Recorder o_r = Make().TrainRecvOverhead(m, 8, 1e-9, 40, 4);
  StopPeers();
  // 7 arrivals kPostTicks apart, the last one's receive posted after it.
  EXPECT_DOUBLE_EQ(o_r.histogram().max(), (7 * kPostTicks + kRecvTicks) / 7.0);
}

}  // namespace
}  // namespace verbsbench::internal
