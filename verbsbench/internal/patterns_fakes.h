// Test fakes for the measurement patterns and the peer: a fake data path (a
// tick counter that the path's operations advance by known amounts), peers
// served over loopback channels in threads, and a fake wire that couples
// root and peer clocks the way a real round couples them: what one side
// still does when the next message arrives shows in the other side's
// samples. No device, exact expected samples.
#ifndef VERBSBENCH_INTERNAL_PATTERNS_FAKES_H_
#define VERBSBENCH_INTERNAL_PATTERNS_FAKES_H_

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
#include "verbsbench/internal/patterns.h"
#include "verbsbench/internal/peer.h"

namespace verbsbench::internal {

inline constexpr uint64_t kPostTicks = 10;    // per WR posted
inline constexpr uint64_t kReplyTicks = 100;  // waiting for the replies
inline constexpr uint64_t kReadTicks = 40;    // an RDMA read's completion
inline constexpr uint64_t kRecvTicks = 3;     // per receive posted
inline constexpr uint64_t kStreamTicks = 5000;
inline constexpr uint64_t kWireTicks = 50;  // a message's flight, either way

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
inline constexpr double kWiredRound = 2 * (kPostTicks + kWireTicks);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_PATTERNS_FAKES_H_
