// The measurement patterns and the peer on the fake data path and wire of
// patterns_fakes.h: no device, exact expected samples. (LogGP's trains:
// patterns_loggp_test.cc.)
#include "verbsbench/internal/patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "verbsbench/internal/patterns_fakes.h"

namespace verbsbench::internal {
namespace {

TEST_F(WiredTest, PeerRepostsOneRecvPerRoundOutsideTheRootsRounds) {
  options_.raw_limit = 1000;
  StartWiredPeer();
  const Recorder r =
      Make().RoundTrip1n(1, Message{Op::kSend, 8, false}, 1000, 0, 1.0);
  StopPeers();
  EXPECT_EQ(r.count(), 1000u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), kWiredRound);
  EXPECT_DOUBLE_EQ(r.histogram().max(), kWiredRound);
  EXPECT_EQ(peer_paths_[0]->reposts, std::vector<uint32_t>(1000, 1));
  EXPECT_EQ(root_path_.reposts, std::vector<uint32_t>(1000, 1));
}

// The control: the same rounds with the peer refilling half its queue at
// once (rq_depth 256: 128 receives every 128 rounds). The round after each
// batch waits for it: 7 slow samples in 1000, the tail the wire model must
// see.
TEST_F(WiredTest, BatchRefillOnThePeerShowsInTheRootsTail) {
  options_.raw_limit = 1000;
  StartWiredPeer([](FakePath& peer) { peer.batch_reposts = true; });
  const Recorder r =
      Make().RoundTrip1n(1, Message{Op::kSend, 8, false}, 1000, 0, 1.0);
  StopPeers();
  EXPECT_DOUBLE_EQ(r.histogram().min(), kWiredRound);
  EXPECT_EQ(SlowSamples(r), 1000u / 128);
  EXPECT_DOUBLE_EQ(r.histogram().max(),
                   kWiredRound + 128 * kRecvTicks -
                       (kWireTicks + kRecvTicks + kPostTicks + kWireTicks));
}

// n:1: the root replies and the peer times; the root reposts after its
// reply, so the peer's rounds are all alike.
TEST_F(WiredTest, RootRepostsOneRecvPerRoundOutsideThePeersRounds) {
  options_.raw_limit = 1000;
  StartWiredPeer();
  const Recorder r =
      Make().RoundTripN1(1, Message{Op::kSend, 8, false}, 600, 10);
  StopPeers();
  EXPECT_EQ(r.count(), 600u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), kWiredRound);
  EXPECT_DOUBLE_EQ(r.histogram().max(), kWiredRound);
  EXPECT_EQ(root_path_.reposts, std::vector<uint32_t>(610, 1));
}

TEST_F(WiredTest, RdmaWriteRoundsRepostNothing) {
  StartWiredPeer();
  const Recorder r =
      Make().RoundTrip1n(1, Message{Op::kWrite, 8, false}, 300, 0, 1.0);
  StopPeers();
  EXPECT_DOUBLE_EQ(r.histogram().max(), kWiredRound);
  EXPECT_TRUE(peer_paths_[0]->reposts.empty());
  EXPECT_TRUE(root_path_.reposts.empty());
}

TEST_F(PatternsTest, SamplesWhoseThreadMovedAreCounted) {
  // The peer serves 13 + 10 echoes first; it moves in the third n:1 round.
  StartPeers(1, [](FakePath& peer) { peer.migrate_on_await = 23 + 3; });
  Patterns<FakePath> patterns = Make();
  const Message m{Op::kSend, 8, false};
  root_path_.migrate_on_await = 2;  // a warm-up round: not a sample
  const Recorder warm = patterns.RoundTrip1n(1, m, 10, 3, 2.0);
  root_path_.migrate_on_await = root_path_.awaits + 3;
  const Recorder root_timed = patterns.RoundTrip1n(1, m, 10, 0, 2.0);
  const Recorder peer_timed = patterns.RoundTripN1(1, m, 10, 0);
  StopPeers();
  EXPECT_EQ(warm.migrated(), 0u);
  EXPECT_EQ(root_timed.migrated(), 1u);
  EXPECT_EQ(peer_timed.migrated(), 1u);  // measured by the peer, sent back
  EXPECT_EQ(peer_timed.count(), 10u);
}

TEST_F(PatternsTest, RoundTrip1nTimesPostsAndRepliesAndSkipsWarmup) {
  StartPeers(2);
  const Message m{Op::kSend, 8, false};
  const Recorder r = Make().RoundTrip1n(2, m, 20, 5, 2.0);
  StopPeers();
  EXPECT_EQ(r.count(), 20u);
  // Two posts and one wait for both replies, halved.
  EXPECT_DOUBLE_EQ(r.histogram().min(), (2 * kPostTicks + kReplyTicks) / 2.0);
  EXPECT_DOUBLE_EQ(r.histogram().max(), r.histogram().min());
  EXPECT_EQ(root_path_.posted, 2u * 25);
  EXPECT_EQ(root_path_.armed, (std::vector<int>{0, 1}));
  EXPECT_EQ(root_path_.drained, (std::vector<int>{0, 1}));
  for (const auto& peer : peer_paths_) {
    EXPECT_EQ(peer->posted, 25u);  // one echo per message, warm-up included
    EXPECT_EQ(peer->replies, 25u);
  }
}

// The list-posted round: per round one post of a list of p and one wait
// for all p replies; the sample is the whole round.
TEST_F(PatternsTest, RoundTrip1nListPostsOneListPerRoundAndAwaitsPReplies) {
  StartPeers(3);
  const Recorder r =
      Make().RoundTrip1nList(3, Message{Op::kSend, 8, true}, 20, 5);
  StopPeers();
  EXPECT_EQ(r.count(), 20u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), 3 * kPostTicks + kReplyTicks);
  EXPECT_DOUBLE_EQ(r.histogram().max(), r.histogram().min());
  EXPECT_EQ(root_path_.ud_posts, std::vector<int>(25, 3));
  EXPECT_EQ(root_path_.ud_awaits, std::vector<int>(25, 3));
  EXPECT_EQ(root_path_.ud_reposts, std::vector<uint32_t>(25, 3));
  EXPECT_EQ(root_path_.ud_signaled, 1);  // the last list, for the drain
  EXPECT_EQ(root_path_.ud_armed, 1);
  EXPECT_EQ(root_path_.ud_drained, 1);
  EXPECT_EQ(root_path_.posted, 0u);  // no RC send
  for (const auto& peer : peer_paths_) {
    EXPECT_EQ(peer->ud_posts, std::vector<int>(25, 1));  // one UD reply each
    EXPECT_EQ(peer->ud_awaits, std::vector<int>(25, 1));
    EXPECT_EQ(peer->ud_reposts, std::vector<uint32_t>(25, 1));
    EXPECT_EQ(peer->ud_signaled, 1);
    EXPECT_EQ(peer->ud_drained, 1);
  }
}

// On the wire: the root's list goes out, the peer's UD reply comes back,
// each side reposts its one receive after the round's messages.
TEST_F(WiredTest, ListRoundIsTheListsPostAndBothFlights) {
  options_.raw_limit = 100;
  StartWiredPeer();
  const Recorder r =
      Make().RoundTrip1nList(1, Message{Op::kSend, 8, false}, 100, 0);
  StopPeers();
  EXPECT_EQ(r.count(), 100u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), kWiredRound);
  EXPECT_DOUBLE_EQ(r.histogram().max(), kWiredRound);
}

TEST_F(PatternsTest, ReadRoundTripIsOneSignaledReadWithoutThePeers) {
  const Recorder r =
      Make().RoundTrip1n(1, Message{Op::kRead, 64, false}, 7, 3, 1.0);
  EXPECT_EQ(r.count(), 7u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), kPostTicks + kReadTicks);
  EXPECT_EQ(root_path_.signaled, 10u);
}

TEST_F(PatternsTest, RoundTripN1MergesWhatThePeersMeasured) {
  StartPeers(3);
  const Recorder r = Make().RoundTripN1(3, Message{Op::kWrite, 8, true}, 9, 2);
  StopPeers();
  EXPECT_EQ(r.count(), 3u * 9);
  // Each peer times its post and the root's reply.
  EXPECT_DOUBLE_EQ(r.histogram().min(), kPostTicks + kReplyTicks);
  EXPECT_EQ(root_path_.posted, 3u * 11);  // one reply per peer per round
  EXPECT_EQ(root_path_.replies, 3u * 11);
}

TEST_F(PatternsTest, SendOverheadIsPerWrForListsAndSinglePosts) {
  StartPeers(3);
  const Message m{Op::kSend, 8, false};
  Patterns<FakePath> patterns = Make();
  const Recorder single = patterns.SendOverhead(3, m, false, 4, 1);
  const Recorder list = patterns.SendOverhead(3, m, true, 4, 1);
  StopPeers();
  EXPECT_EQ(single.count(), 4u);
  EXPECT_EQ(list.count(), 4u);
  EXPECT_DOUBLE_EQ(single.histogram().min(), kPostTicks);
  EXPECT_DOUBLE_EQ(list.histogram().min(), kPostTicks);
  // Sends need sinks: single posts one per peer per round, a list all on
  // peer 0.
  EXPECT_EQ(peer_paths_[0]->sunk, 5u + 15u);
  EXPECT_EQ(peer_paths_[1]->sunk, 5u);
  EXPECT_EQ(peer_paths_[2]->sunk, 5u);
}

TEST_F(PatternsTest, RecvOverheadPerWrAndErrorsPropagate) {
  const Recorder r = Make().RecvOverhead(4, false, 6, 2);
  EXPECT_EQ(r.count(), 6u);
  EXPECT_DOUBLE_EQ(r.histogram().min(), kRecvTicks);
  root_path_.recv_error = 12;
  EXPECT_THROW(Make().RecvOverhead(4, true, 1, 0), std::runtime_error);
}

TEST_F(PatternsTest, BidirectionalStreamRunsOnBothSides) {
  StartPeers(1);
  options_.window = 32;
  options_.post_list = 4;
  options_.cq_mod = 8;
  Recorder rec;
  const StreamTimes t =
      Make().Stream(Message{Op::kSend, 4096, false}, 500, true, rec);
  StopPeers();
  EXPECT_DOUBLE_EQ(t.elapsed_ns, kStreamTicks);
  EXPECT_DOUBLE_EQ(t.peer_elapsed_ns, kStreamTicks);
  EXPECT_EQ(root_path_.last_shape.window, 32u);
  EXPECT_EQ(root_path_.last_shape.post_list, 4u);
  EXPECT_EQ(root_path_.last_shape.expect_recv, 500u);
  EXPECT_EQ(peer_paths_[0]->streamed, 500u);
  EXPECT_EQ(peer_paths_[0]->last_shape.expect_recv, 500u);
}

TEST_F(PatternsTest, OneWayWriteStreamNeedsNoPeer) {
  Recorder rec;
  const StreamTimes t =
      Make().Stream(Message{Op::kWrite, 64, false}, 50, false, rec);
  EXPECT_DOUBLE_EQ(t.elapsed_ns, kStreamTicks);
  EXPECT_DOUBLE_EQ(t.peer_elapsed_ns, 0);
  EXPECT_EQ(root_path_.last_shape.expect_recv, 0u);
}

TEST(PeerTest, UnknownCommandEndsServingWithAReason) {
  auto [root, peer_end] = Loopback::Pair();
  FakePath path;
  const Timer timer(1e9, 0);
  Peer<FakePath> peer(path, *peer_end, timer);
  root->Send(nlohmann::json{{"type", "dance"}});
  try {
    peer.Serve();
    ADD_FAILURE() << "unknown command served";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "unknown command 'dance' from root");
  }
}

TEST(PeerTest, SinkRepliesDone) {
  auto [root, peer_end] = Loopback::Pair();
  FakePath path;
  const Timer timer(1e9, 0);
  Peer<FakePath> peer(path, *peer_end, timer);
  SendMessage(*root, Sink{42});
  SendMessage(*root, Quit{});
  peer.Serve();
  EXPECT_EQ(path.sunk, 42u);
  EXPECT_FALSE(ExpectMessage<Done>(*root, 1).elapsed_ns.has_value());
}

}  // namespace
}  // namespace verbsbench::internal
