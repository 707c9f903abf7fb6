// The measurement patterns and the peer on a fake data path (a tick counter
// that the path's operations advance by known amounts), with peers served
// over loopback channels in threads: no device, exact expected samples.
#include "verbsbench/internal/patterns.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
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

class FakePath {
 public:
  uint64_t Now() const { return now_; }
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
  }
  void AwaitReplies(int n, const Message&, uint64_t) {
    now_ += kReplyTicks;
    replies += static_cast<uint64_t>(n);
  }
  void AwaitSignaled(int) { now_ += kReadTicks; }
  void Refill(int) {}
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

  std::vector<int> armed, drained;
  std::map<int, int> staged;
  uint64_t posted = 0, replies = 0, sunk = 0, streamed = 0, signaled = 0;
  StreamShape last_shape;
  int recv_error = 0;

 private:
  uint64_t now_ = 1000;
};

// A root with p peers, each served by Peer<FakePath> in its own thread.
class PatternsTest : public ::testing::Test {
 protected:
  void StartPeers(int p) {
    for (int i = 0; i < p; ++i) {
      auto [root_end, peer_end] = Loopback::Pair("root", "peer");
      peer_paths_.push_back(std::make_unique<FakePath>());
      FakePath* path = peer_paths_.back().get();
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
