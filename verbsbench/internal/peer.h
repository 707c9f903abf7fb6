// The peer's side of the protocol: serves the root's typed commands on a
// data path until Quit. Generic over the path (see patterns.h).
#ifndef VERBSBENCH_INTERNAL_PEER_H_
#define VERBSBENCH_INTERNAL_PEER_H_

#include <cstdint>
#include <variant>

#include "verbsbench/internal/channel.h"
#include "verbsbench/internal/measurements.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/internal/recv_repost.h"
#include "verbsbench/timer.h"

namespace verbsbench::internal {

template <class Path>
class Peer {
 public:
  Peer(Path& path, Channel& root, const Timer& timer)
      : path_(path), root_(root), timer_(timer) {}

  // Returns on Quit; throws on a failed command (the caller reports it to
  // the root as an Error).
  void Serve() {
    for (;;) {
      const Command command = DecodeCommand(root_.Recv());
      if (std::holds_alternative<Quit>(command)) return;
      std::visit([this](const auto& c) { Handle(c); }, command);
    }
  }

 private:
  void Handle(const Quit&) {}

  void Handle(const Echo& c) {
    const Message& m = c.message;
    path_.Arm(0, m);
    SendMessage(root_, Ready{});
    for (uint64_t k = 0; k < c.count; ++k) {
      path_.AwaitReplies(1, m, k);
      path_.Stage(0, m, k, false);
      path_.PostStaged(0);
      // After the reply is out: the root is timing this round.
      RepostConsumedRecvs(path_, 0);
    }
    path_.Drain(0);
    SendMessage(root_, Done{});
  }

  // The list-posted round: one UD reply to the root per root message.
  void Handle(const EchoUd& c) {
    const Message& m = c.message;
    path_.ArmUd(m);
    SendMessage(root_, Ready{});
    for (uint64_t k = 0; k < c.count; ++k) {
      path_.AwaitUdReplies(1);
      path_.StageUdList(m, 1, k + 1 == c.count);
      path_.PostUdStaged();
      RepostConsumedUdRecvs(path_);
    }
    path_.DrainUd();
    SendMessage(root_, Done{});
  }

  void Handle(const Initiate& c) {
    const Message& m = c.message;
    Recorder rec(c.cycle, c.raw_limit);
    path_.Arm(0, m);
    for (uint64_t k = 0; k < c.count; ++k) {
      path_.Stage(0, m, k, false);
      const Stamp t0 = path_.Now();
      path_.PostStaged(0);
      path_.AwaitReplies(1, m, k);
      const Stamp t1 = path_.Now();
      if (k >= c.warmup) rec.Add(timer_.ElapsedNs(t0, t1), Migrated(t0, t1));
      RepostConsumedRecvs(path_, 0);
    }
    path_.Drain(0);
    SendMessage(root_, PeerResult{rec});
  }

  void Handle(const Train& c) {
    const Message& m = c.message;
    Recorder rec(c.cycle, c.raw_limit);
    path_.Arm(0, m);
    SendMessage(root_, Ready{});
    const uint64_t settle = timer_.NsToTicks(c.settle_ns);
    for (uint64_t k = 0; k < c.count; ++k) {
      if (c.settle_ns > 0) {
        path_.AwaitReplies(1, m, k);
        path_.SpinTicks(settle);
        const Stamp t0 = path_.Now();
        for (uint32_t j = 1; j < c.n; ++j) {
          path_.AwaitReplies(1, m, k);
          path_.PostRecvs(0, 1);
        }
        const Stamp t1 = path_.Now();
        if (k >= c.warmup) {
          rec.Add(timer_.ElapsedNs(t0, t1) / (c.n - 1), Migrated(t0, t1));
        }
      } else {
        for (uint32_t j = 0; j < c.n; ++j) path_.AwaitReplies(1, m, k);
      }
      path_.Stage(0, m, k, false);
      path_.PostStaged(0);
      RepostConsumedRecvs(path_, 0);
    }
    path_.Drain(0);
    if (c.settle_ns > 0) {
      SendMessage(root_, PeerResult{rec});
    } else {
      SendMessage(root_, Done{});
    }
  }

  void Handle(const Sink& c) {
    path_.SinkRecvs(c.count);
    SendMessage(root_, Done{});
  }

  void Handle(const Stream& c) {
    SendMessage(root_, Ready{});
    Recorder rec;
    const StreamShape shape{c.window, c.post_list, c.cq_mod, c.expect_recv};
    const uint64_t ticks = path_.Stream(c.message, c.count, shape, rec);
    SendMessage(root_, Done{timer_.TicksToNs(ticks)});
  }

  Path& path_;
  Channel& root_;
  const Timer& timer_;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_PEER_H_
