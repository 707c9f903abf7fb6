#include "emulate/turns.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "emulate/pacer.h"

namespace verbsemu::emulate {
namespace {

TEST(TurnsTest, ANewLinkWaitsForNoOne) {
  TurnState turns;
  EXPECT_EQ(TurnWait(turns, 1, 100, 500, 50), 0u);
}

TEST(TurnsTest, TheLastTurnsTakerLooksAgainAGraceAfterTheLinkIsFree) {
  TurnState turns;
  TookTurn(turns, 1);
  EXPECT_EQ(TurnWait(turns, 1, 100, 500, 50), 550u);
  EXPECT_EQ(TurnWait(turns, 1, 549, 500, 50), 550u);
  EXPECT_EQ(TurnWait(turns, 1, 550, 500, 50), 0u);
  // The others book at once.
  EXPECT_EQ(TurnWait(turns, 2, 100, 500, 50), 0u);
  TookTurn(turns, 2);
  EXPECT_EQ(TurnWait(turns, 1, 100, 500, 50), 0u);
}

TEST(TurnsTest, NoGraceOrNoNameIsFirstCome) {
  TurnState turns;
  TookTurn(turns, 1);
  EXPECT_EQ(TurnWait(turns, 1, 100, 500, 0), 0u);
  TookTurn(turns, 0);
  EXPECT_EQ(TurnWait(turns, 0, 100, 500, 50), 0u);
}

// Two queued senders into one link of 1 byte per tick, messages of 100
// bytes: 8 from sender 1, 4 from sender 2. Sender 1's queue always waits here
// (its own link is faster): it looks at the link when its last message is
// through. Sender 2's messages reach the link every 200 ticks from 100 (its own
// link is shared with a third flow, as a>c beside a>b), each looked at when it
// arrives. At one instant sender 1 looks first, as a drainer that finishes one
// message and books the next in one pass does. Returns when sender 2's last
// message is through.
uint64_t SecondSendersEnd(uint64_t grace) {
  Pacer link(1.0, 0, 0);
  TurnState turns;
  uint64_t look[2] = {0, 100};
  int left[2] = {8, 4};
  uint64_t end = 0;
  while (left[1] > 0) {
    const int s = left[0] > 0 && look[0] <= look[1] ? 0 : 1;
    const uint64_t me = s + 1;
    if (const uint64_t again =
            TurnWait(turns, me, look[s], link.FreeAt(), grace)) {
      look[s] = again;
      continue;
    }
    const uint64_t through = link.Reserve(look[s], 100, Pacer::Sender::kQueued);
    TookTurn(turns, me);
    --left[s];
    if (s == 0) {
      look[0] = through;
    } else {
      look[1] += 200;
      end = through;
    }
  }
  return end;
}

TEST(TurnsTest, ASenderArrivingWhenTheLinkFreesGetsItsTurn) {
  // Fair: sender 2 at 100-200, 300-400, 500-600, 700-800. First come,
  // sender 1 takes the tie at 100 and sender 2 is one message late to the
  // end.
  EXPECT_EQ(SecondSendersEnd(0), 900u);
  EXPECT_EQ(SecondSendersEnd(25), 800u);
}

}  // namespace
}  // namespace verbsemu::emulate
