// The measurement patterns and the peer on a fake data path (a tick counter
// that the path's operations advance by known amounts), with peers served
// over loopback channels in threads: no device, exact expected samples.
// Joined by a fake wire, root and peer clocks are coupled the way a real
// round couples them: what one side still does when the next message
// arrives shows in the other side's samples.
#include "verbsbench/internal/patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "verbsbench/internal/loopback.h"
#include "verbsbench/internal/peer.h"

namespace verbsbench::internal {
namespace {

constexpr uint64_t kPostTicks = 10;    // per WR posted
constexpr uint64_t kReplyTicks = 100;  // waiting for the replies
constexpr uint64_t kReadTicks = 40;    // an RDMA read's completion
constexpr uint64_t kRecvTicks = 3;     // per receive posted
constexpr uint64_t kStreamTicks = 5000;
constexpr uint64_t kWireTicks = 50;  // a message's flight, either way

// Messages in flight between the root's fake path (side 0) and one peer's
// (side 1): each carries its arrival time in the receiver's clock.
class Wire {
 public:
  void Send(int to, uint64_t arrival) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_[to].push_back(arrival);
    cv_.notify_all();
  }
  uint64_t Receive(int side) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return !queue_[side].empty(); })) {
      throw std::runtime_error("wire: no message arrived");
    }
    const uint64_t arrival = queue_[side].front();
    queue_[side].pop_front();
    return arrival;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<uint64_t> queue_[2];
};

class FakePath {
 public:
  Stamp Now() const { return {now_, cpu}; }
  void SpinTicks(uint64_t ticks) { now_ += ticks; }
  bool Inline(const Message& m) const { return m.inl && m.size <= 64; }
  void Arm(int i, const Message&) { armed.push_back(i); }
  void Stage(int i, const Message&, uint64_t, bool force_signal) {
    staged[i] = 1;
    if (force_signal) ++signaled;
  }
  void StageList(const Message&, uint64_t, int n) { staged[0] = n; }
  void PostStaged(int i) {
    now_ += kPostTicks * static_cast<uint64_t>(staged[i]);
    posted += static_cast<uint64_t>(staged[i]);
    if (wire) wire->Send(1 - side, now_ + kWireTicks);
  }
  // A send consumes a receive on each endpoint it arrives on; with none
  // posted the real device would answer receiver-not-ready.
  void AwaitReplies(int n, const Message& m, uint64_t) {
    for (int i = 0; i < n; ++i) {
      if (wire) now_ = std::max(now_, wire->Receive(side));
      if (m.op == Op::kSend) {
        if (Posted(i) == 0) throw std::runtime_error("receiver not ready");
        --Posted(i);
      }
    }
    if (!wire) now_ += kReplyTicks;
    replies += static_cast<uint64_t>(n);
    if (++awaits == migrate_on_await) ++cpu;
  }
  void AwaitSignaled(int) { now_ += kReadTicks; }
  // `batch_reposts` models the old refill: nothing until half the queue
  // is gone, then all of it at once.
  uint32_t RecvsMissing(int i) {
    const uint32_t missing = recv_depth - Posted(i);
    return batch_reposts && missing < recv_depth / 2 ? 0 : missing;
  }
  void PostRecvs(int i, uint32_t n) {
    now_ += kRecvTicks * n;
    Posted(i) += n;
    reposts.push_back(n);
  }
  void Drain(int i) { drained.push_back(i); }
  void SinkRecvs(uint64_t count) { sunk += count; }
  uint64_t Stream(const Message&, uint64_t count, const StreamShape& shape,
                  Recorder& rec) {
    streamed += count;
    last_shape = shape;
    rec.Add(1.0);
    return kStreamTicks;
  }
  void StageRecvs(int, bool) {}
  int PostStagedRecvs(int p, bool) {
    now_ += kRecvTicks * static_cast<uint64_t>(p);
    return recv_error;
  }
  void FinishRecvs(int, bool, int err) {
    if (err) throw std::runtime_error("ibv_post_recv failed");
  }
  // The UD QP of the list-posted round: one list per post, its receives
  // counted apart from the RC endpoints'.
  bool InlineUd(const Message& m) const { return m.inl && m.size <= 32; }
  void ArmUd(const Message&) { ++ud_armed; }
  void StageUdList(const Message&, int n, bool signal) {
    ud_staged = n;
    if (signal) ++ud_signaled;
  }
  void PostUdStaged() {
    now_ += kPostTicks * static_cast<uint64_t>(ud_staged);
    ud_posts.push_back(ud_staged);
    if (wire) wire->Send(1 - side, now_ + kWireTicks);
  }
  void AwaitUdReplies(int n) {
    for (int i = 0; i < n; ++i) {
      if (wire) now_ = std::max(now_, wire->Receive(side));
      if (ud_posted == 0) throw std::runtime_error("UD message dropped");
      --ud_posted;
    }
    if (!wire) now_ += kReplyTicks;
    ud_awaits.push_back(n);
  }
  uint32_t UdRecvsMissing() const { return recv_depth - ud_posted; }
  void PostUdRecvs(uint32_t n) {
    now_ += kRecvTicks * n;
    ud_posted += n;
    ud_reposts.push_back(n);
  }
  void DrainUd() { ++ud_drained; }

  std::vector<int> armed, drained;
  std::map<int, int> staged;
  uint64_t posted = 0, replies = 0, sunk = 0, streamed = 0, signaled = 0;
  StreamShape last_shape;
  int recv_error = 0;
  Wire* wire = nullptr;
  int side = 0;  // on the wire: 0 root, 1 peer
  uint32_t recv_depth = 256;
  bool batch_reposts = false;
  std::vector<uint32_t> reposts;  // receives posted, per PostRecvs call
  uint32_t cpu = 0;
  uint64_t awaits = 0, migrate_on_await = 0;  // the nth wait moves the CPU
  int ud_staged = 0, ud_armed = 0, ud_signaled = 0, ud_drained = 0;
  uint32_t ud_posted = 256;              // receives posted on the UD QP
  std::vector<int> ud_posts, ud_awaits;  // WRs per post, replies per wait
  std::vector<uint32_t> ud_reposts;

 private:
  uint32_t& Posted(int i) {
    return recvs_posted_.try_emplace(i, recv_depth).first->second;
  }

  uint64_t now_ = 1000;
  std::map<int, uint32_t> recvs_posted_;
};

// A root with p peers, each served by Peer<FakePath> in its own thread.
class PatternsTest : public ::testing::Test {
 protected:
  void StartPeers(int p, const std::function<void(FakePath&)>& setup = {}) {
    for (int i = 0; i < p; ++i) {
      auto [root_end, peer_end] = Loopback::Pair("root", "peer");
      peer_paths_.push_back(std::make_unique<FakePath>());
      FakePath* path = peer_paths_.back().get();
      if (setup) setup(*path);
      Loopback* end = peer_end.get();
      threads_.emplace_back([path, end, this] {
        Peer<FakePath> peer(*path, *end, timer_);
        try {
          peer.Serve();
        } catch (const std::exception& e) {
          ADD_FAILURE() << "peer: " << e.what();
        }
      });
      channels_.push_back(root_end.get());
      root_ends_.push_back(std::move(root_end));
      peer_ends_.push_back(std::move(peer_end));
    }
  }
  void StopPeers() {
    for (auto& end : root_ends_) SendMessage(*end, Quit{});
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  void TearDown() override {
    if (!threads_.empty()) StopPeers();
  }
  Patterns<FakePath> Make() {
    return Patterns<FakePath>(root_path_, channels_, timer_, options_);
  }

  const Timer timer_{1e9, 0.0};  // 1 tick = 1 ns
  Options options_;
  FakePath root_path_;
  std::vector<Channel*> channels_;
  std::vector<std::unique_ptr<Loopback>> root_ends_, peer_ends_;
  std::vector<std::unique_ptr<FakePath>> peer_paths_;
  std::vector<std::thread> threads_;
};

// Root and one peer on a wire; the peer set up by `setup` too.
class WiredTest : public PatternsTest {
 protected:
  void StartWiredPeer(const std::function<void(FakePath&)>& setup = {}) {
    root_path_.wire = &wire_;
    StartPeers(1, [&](FakePath& peer) {
      peer.wire = &wire_;
      peer.side = 1;
      if (setup) setup(peer);
    });
  }
  // Samples above the fastest one.
  static size_t SlowSamples(const Recorder& r) {
    const double fastest = r.histogram().min();
    return static_cast<size_t>(std::count_if(
        r.raw().begin(), r.raw().end(), [&](double v) { return v > fastest; }));
  }

  Wire wire_;
};

// A round is the message's post and flight and the reply's post and flight;
// the replier's repost of the one receive it consumed comes after its reply
// and is done long before the next message arrives.
constexpr double kWiredRound = 2 * (kPostTicks + kWireTicks);

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
