// The root's measurement patterns (LoP's 1:n and n:1 rounds, the 1:n round
// posted as one UD list, o_s, o_r, LogGP's PRTT trains, the bw stream),
// generic over the data path so tests run them on a fake path against peers
// on loopback channels.
// A Path has the interface of VerbsPath (data_path.h); Now() is its timed
// point (ticks and CPU). A sample whose two points ran on different CPUs is
// counted as migrated.
#ifndef VERBSBENCH_INTERNAL_PATTERNS_H_
#define VERBSBENCH_INTERNAL_PATTERNS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "verbsbench/internal/channel.h"
#include "verbsbench/internal/measurements.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/internal/recv_repost.h"
#include "verbsbench/options.h"
#include "verbsbench/timer.h"

namespace verbsbench::internal {

template <class Path>
class Patterns : public Measurements {
 public:
  Patterns(Path& path, std::vector<Channel*> peers, const Timer& timer,
           const Options& options)
      : path_(path), peers_(std::move(peers)), timer_(timer), o_(options) {}

  bool Inline(const Message& m) const override { return path_.Inline(m); }

  Recorder RoundTrip1n(int p, const Message& m, uint64_t iters, uint64_t warmup,
                       double divisor) override {
    if (m.op == Op::kRead) return ReadRoundTrip(m, iters, warmup, divisor);
    Recorder rec(o_.cycle, o_.raw_limit);
    const uint64_t count = iters + warmup;
    for (int i = 0; i < p; ++i) path_.Arm(i, m);
    for (int i = 0; i < p; ++i) SendMessage(Peer(i), Echo{m, count});
    for (int i = 0; i < p; ++i) ExpectMessage<Ready>(Peer(i), o_.timeout_s);
    for (uint64_t k = 0; k < count; ++k) {
      for (int i = 0; i < p; ++i) path_.Stage(i, m, k, false);
      const Stamp t0 = path_.Now();
      for (int i = 0; i < p; ++i) path_.PostStaged(i);
      path_.AwaitReplies(p, m, k);
      const Stamp t1 = path_.Now();
      if (k >= warmup) {
        rec.Add(timer_.ElapsedNs(t0, t1) / divisor, Migrated(t0, t1));
      }
      for (int i = 0; i < p; ++i) RepostConsumedRecvs(path_, i);
    }
    for (int i = 0; i < p; ++i) path_.Drain(i);
    for (int i = 0; i < p; ++i) ExpectMessage<Done>(Peer(i), o_.timeout_s);
    return rec;
  }

  bool InlineUd(const Message& m) const override { return path_.InlineUd(m); }

  Recorder RoundTrip1nList(int p, const Message& m, uint64_t iters,
                           uint64_t warmup) override {
    Recorder rec(o_.cycle, o_.raw_limit);
    const uint64_t count = iters + warmup;
    path_.ArmUd(m);
    for (int i = 0; i < p; ++i) SendMessage(Peer(i), EchoUd{m, count});
    for (int i = 0; i < p; ++i) ExpectMessage<Ready>(Peer(i), o_.timeout_s);
    for (uint64_t k = 0; k < count; ++k) {
      path_.StageUdList(m, p, k + 1 == count);
      const Stamp t0 = path_.Now();
      path_.PostUdStaged();
      path_.AwaitUdReplies(p);
      const Stamp t1 = path_.Now();
      if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1), Migrated(t0, t1));
      RepostConsumedUdRecvs(path_);
    }
    path_.DrainUd();
    for (int i = 0; i < p; ++i) ExpectMessage<Done>(Peer(i), o_.timeout_s);
    return rec;
  }

  Recorder RoundTripN1(int p, const Message& m, uint64_t iters,
                       uint64_t warmup) override {
    const uint64_t count = iters + warmup;
    for (int i = 0; i < p; ++i) path_.Arm(i, m);
    const Initiate cmd{{m, count, warmup, o_.cycle, o_.raw_limit}};
    for (int i = 0; i < p; ++i) SendMessage(Peer(i), cmd);
    for (uint64_t k = 0; k < count; ++k) {
      path_.AwaitReplies(p, m, k);
      for (int i = 0; i < p; ++i) {
        path_.Stage(i, m, k, false);
        path_.PostStaged(i);
      }
      // After every reply is out: the peers are timing this round.
      for (int i = 0; i < p; ++i) RepostConsumedRecvs(path_, i);
    }
    for (int i = 0; i < p; ++i) path_.Drain(i);
    Recorder merged(o_.cycle, o_.raw_limit);
    for (int i = 0; i < p; ++i) {
      merged.Merge(ExpectMessage<PeerResult>(Peer(i), o_.timeout_s).recorder);
    }
    return merged;
  }

  Recorder SendOverhead(int p, const Message& m, bool list, uint64_t iters,
                        uint64_t warmup) override {
    const int group = list ? 1 : p;
    const uint64_t count = iters + warmup;
    if (m.op == Op::kSend) {
      const uint64_t per_peer = list ? count * static_cast<uint64_t>(p) : count;
      for (int i = 0; i < group; ++i) SendMessage(Peer(i), Sink{per_peer});
    }
    Recorder rec(o_.cycle, o_.raw_limit);
    for (uint64_t k = 0; k < count; ++k) {
      if (list) {
        path_.StageList(m, k, p);
      } else {
        for (int i = 0; i < p; ++i) path_.Stage(i, m, k, false);
      }
      const Stamp t0 = path_.Now();
      for (int i = 0; i < group; ++i) path_.PostStaged(i);
      const Stamp t1 = path_.Now();
      if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / p, Migrated(t0, t1));
    }
    for (int i = 0; i < group; ++i) path_.Drain(i);
    if (m.op == Op::kSend) {
      for (int i = 0; i < group; ++i) {
        ExpectMessage<Done>(Peer(i), o_.timeout_s);
      }
    }
    return rec;
  }

  Recorder RecvOverhead(int p, bool list, uint64_t iters,
                        uint64_t warmup) override {
    Recorder rec(o_.cycle, o_.raw_limit);
    for (uint64_t k = 0; k < iters + warmup; ++k) {
      path_.StageRecvs(p, list);
      const Stamp t0 = path_.Now();
      const int err = path_.PostStagedRecvs(p, list);
      const Stamp t1 = path_.Now();
      path_.FinishRecvs(p, list, err);
      if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / p, Migrated(t0, t1));
    }
    return rec;
  }

  Recorder Prtt(const Message& m, int n, double delay_ns, uint64_t iters,
                uint64_t warmup) override {
    Recorder rec(o_.cycle, o_.raw_limit);
    StartTrains(m, n, 0, iters + warmup, warmup);
    RunTrains(m, n, timer_.NsToTicks(delay_ns), iters + warmup, warmup, &rec);
    ExpectMessage<Done>(Peer(0), o_.timeout_s);
    return rec;
  }

  Recorder TrainRecvOverhead(const Message& m, int n, double settle_ns,
                             uint64_t iters, uint64_t warmup) override {
    StartTrains(m, n, settle_ns, iters + warmup, warmup);
    RunTrains(m, n, 0, iters + warmup, warmup, nullptr);
    return ExpectMessage<PeerResult>(Peer(0), o_.timeout_s).recorder;
  }

  StreamTimes Stream(const Message& m, uint64_t count, bool bidirectional,
                     Recorder& rec) override {
    const bool send = m.op == Op::kSend;
    StreamShape shape{o_.window, o_.post_list, o_.cq_mod, 0};
    if (bidirectional) {
      shape.expect_recv = send ? count : 0;
      SendMessage(Peer(0), internal::Stream{m, count, o_.window, o_.post_list,
                                            o_.cq_mod, shape.expect_recv});
      ExpectMessage<Ready>(Peer(0), o_.timeout_s);
    } else if (send) {
      SendMessage(Peer(0), Sink{count});
    }
    StreamTimes times;
    times.elapsed_ns = timer_.TicksToNs(path_.Stream(m, count, shape, rec));
    if (bidirectional || send) {
      const Done done = ExpectMessage<Done>(Peer(0), o_.timeout_s);
      times.peer_elapsed_ns = done.elapsed_ns.value_or(0.0);
    }
    return times;
  }

 private:
  Channel& Peer(int i) { return *peers_.at(static_cast<size_t>(i)); }

  void StartTrains(const Message& m, int n, double settle_ns, uint64_t count,
                   uint64_t warmup) {
    const Train cmd{{m, count, warmup, o_.cycle, o_.raw_limit},
                    static_cast<uint32_t>(n),
                    settle_ns};
    path_.Arm(0, m);
    SendMessage(Peer(0), cmd);
    ExpectMessage<Ready>(Peer(0), o_.timeout_s);
  }

  // `count` trains of n posts, `delay` ticks apart, each timed from its
  // first post to the reply into `rec` (if given). The send completions are
  // reaped after each train, so no post inside one waits for queue room.
  void RunTrains(const Message& m, int n, uint64_t delay, uint64_t count,
                 uint64_t warmup, Recorder* rec) {
    for (uint64_t k = 0; k < count; ++k) {
      path_.Stage(0, m, k, false);
      const Stamp t0 = path_.Now();
      path_.PostStaged(0);
      for (int j = 1; j < n; ++j) {
        if (delay > 0) path_.SpinTicks(delay);
        path_.Stage(0, m, k, false);
        path_.PostStaged(0);
      }
      path_.AwaitReplies(1, m, k);
      const Stamp t1 = path_.Now();
      if (rec && k >= warmup) {
        rec->Add(timer_.ElapsedNs(t0, t1), Migrated(t0, t1));
      }
      RepostConsumedRecvs(path_, 0);
      path_.Drain(0);
    }
  }

  // RDMA read: the round trip is one signaled read from peer 0.
  Recorder ReadRoundTrip(const Message& m, uint64_t iters, uint64_t warmup,
                         double divisor) {
    Recorder rec(o_.cycle, o_.raw_limit);
    for (uint64_t k = 0; k < iters + warmup; ++k) {
      path_.Stage(0, m, k, true);
      const Stamp t0 = path_.Now();
      path_.PostStaged(0);
      path_.AwaitSignaled(0);
      const Stamp t1 = path_.Now();
      if (k >= warmup) {
        rec.Add(timer_.ElapsedNs(t0, t1) / divisor, Migrated(t0, t1));
      }
    }
    return rec;
  }

  Path& path_;
  std::vector<Channel*> peers_;
  const Timer& timer_;
  const Options& o_;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_PATTERNS_H_
