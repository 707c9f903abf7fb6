// What the modes (lat, bw, lop) ask of the measurement patterns. The
// engine's Patterns<VerbsPath> implements it on a device; mode tests
// implement it with synthetic samples.
#ifndef VERBSBENCH_INTERNAL_MEASUREMENTS_H_
#define VERBSBENCH_INTERNAL_MEASUREMENTS_H_

#include <cstdint>

#include "verbsbench/internal/protocol.h"
#include "verbsbench/stats.h"

namespace verbsbench::internal {

// How bw streams: at most `window` outstanding, `post_list` WRs per post,
// a signaled WR every `cq_mod`, while consuming `expect_recv` receives.
struct StreamShape {
  uint32_t window = 1, post_list = 1, cq_mod = 1;
  uint64_t expect_recv = 0;
};

struct StreamTimes {
  double elapsed_ns = 0;       // this side's stream
  double peer_elapsed_ns = 0;  // the peer's (bidirectional), else 0
};

class Measurements {
 public:
  virtual ~Measurements() = default;
  // Whether `m` goes inline on this device.
  virtual bool Inline(const Message& m) const = 0;
  // 1:n: one message to each of p peers, wait for every reply; samples are
  // the round divided by `divisor`. RDMA read: one read from peer 0.
  virtual Recorder RoundTrip1n(int p, const Message& m, uint64_t iters,
                               uint64_t warmup, double divisor) = 0;
  // Whether `m` goes inline on the UD QP of the list-posted round.
  virtual bool InlineUd(const Message& m) const = 0;
  // 1:n posted as a list (LoP's L_list): p UD sends, one to each peer's
  // address handle, chained and posted with one ibv_post_send on one UD QP;
  // wait for the p UD replies. Samples are whole rounds. Send only.
  virtual Recorder RoundTrip1nList(int p, const Message& m, uint64_t iters,
                                   uint64_t warmup) = 0;
  // n:1: each of p peers times its own round trips; merged.
  virtual Recorder RoundTripN1(int p, const Message& m, uint64_t iters,
                               uint64_t warmup) = 0;
  // o_s(p): ibv_post_send of p WRs, one call per peer or one list; per WR.
  virtual Recorder SendOverhead(int p, const Message& m, bool list,
                                uint64_t iters, uint64_t warmup) = 0;
  // o_r(p): ibv_post_recv of p WRs, one call per QP or one list; per WR.
  virtual Recorder RecvOverhead(int p, bool list, uint64_t iters,
                                uint64_t warmup) = 0;
  // PRTT(n, d, s), Netgauge's LogGP round: n messages to peer 0, each post
  // `delay_ns` after the previous one returned, and peer 0's one reply to
  // the n-th. Samples are whole rounds.
  virtual Recorder Prtt(const Message& m, int n, double delay_ns,
                        uint64_t iters, uint64_t warmup) = 0;
  // LogGP's o_r, timed by peer 0 on back-to-back trains of n (Train's
  // settle_ns): per message.
  virtual Recorder TrainRecvOverhead(const Message& m, int n, double settle_ns,
                                     uint64_t iters, uint64_t warmup) = 0;
  // bw: streams `count` messages to peer 0 (both ways if bidirectional),
  // recording per-message completion intervals.
  virtual StreamTimes Stream(const Message& m, uint64_t count,
                             bool bidirectional, Recorder& rec) = 0;
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_MEASUREMENTS_H_
