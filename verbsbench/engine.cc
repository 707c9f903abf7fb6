#include "verbsbench/engine.h"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "verbsbench/internal/control.h"
#include "verbsbench/internal/fabric.h"
#include "verbsbench/lop/contract.h"
#include "verbsbench/lop/derive.h"
#include "verbsbench/stats.h"
#include "verbsbench/timer.h"

namespace verbsbench {
namespace {

using internal::Control;
using internal::Endpoint;
using internal::Fabric;
using internal::Op;
using nlohmann::json;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Tag carried in the last byte of every message: 1..254, never 0 (zeroed
// buffers), so a receiver polling memory sees exactly the message it waits
// for.
inline uint8_t Tag(uint64_t k) { return static_cast<uint8_t>(k % 254 + 1); }

// Busy-wait guard: throws when a wait exceeds the timeout (a dead peer must
// not hang the run). Reads the clock only every 64K spins.
class Spinner {
 public:
  Spinner(uint64_t timeout_ticks, const char* what, bool yield = false)
      : deadline_(ReadTicks() + timeout_ticks), what_(what), yield_(yield) {}
  void Spin() {
    if (yield_) sched_yield();
    if ((++spins_ & (yield_ ? 0xff : 0xffff)) == 0 && ReadTicks() > deadline_) {
      throw std::runtime_error(std::string("timed out ") + what_);
    }
  }

 private:
  uint64_t deadline_;
  const char* what_;
  bool yield_;
  uint64_t spins_ = 0;
};

struct Message {
  Op op = Op::kSend;
  size_t size = 8;
  bool inl = false;
};

class Bench {
 public:
  Bench(Fabric& fabric, const Timer& timer, const Options& options)
      : fabric_(fabric),
        timer_(timer),
        options_(options),
        timeout_ticks_(static_cast<uint64_t>(options.timeout_s * timer.hz())),
        wait_(options.host.empty()     ? options.wait
              : options.wait != "spin" ? options.wait
                                       : fabric.config().wait),
        // The root never sleeps on events: it spins while peers sleep.
        yield_(wait_ == "yield" || (wait_ == "event" && !options.host.empty())),
        event_(wait_ == "event" && !options.host.empty()) {}

  bool Inline(const Message& m) const {
    return m.inl && m.op != Op::kRead && m.size <= fabric_.max_inline();
  }

  // ---- data path -------------------------------------------------------
  void Prepare(Endpoint& ep, const Message& m, uint8_t tag, bool force_signal,
               uint32_t signal_every, ibv_send_wr& wr, ibv_sge& sge) {
    ep.send_buf[m.size - 1] = tag;
    sge = {};
    sge.addr = reinterpret_cast<uintptr_t>(ep.send_buf);
    sge.length = static_cast<uint32_t>(m.size);
    sge.lkey = ep.mr->lkey;
    wr = {};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    switch (m.op) {
      case Op::kSend:
        wr.opcode = IBV_WR_SEND;
        break;
      case Op::kWrite:
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.wr.rdma.remote_addr = ep.remote_recv;
        wr.wr.rdma.rkey = ep.rkey;
        break;
      case Op::kRead:
        wr.opcode = IBV_WR_RDMA_READ;
        sge.addr = reinterpret_cast<uintptr_t>(ep.recv_buf);
        wr.wr.rdma.remote_addr = ep.remote_send;
        wr.wr.rdma.rkey = ep.rkey;
        break;
    }
    if (Inline(m)) wr.send_flags |= IBV_SEND_INLINE;
    const uint64_t covers = ep.since_signal + 1;
    if (force_signal || covers >= signal_every) {
      wr.send_flags |= IBV_SEND_SIGNALED;
      wr.wr_id = (covers << 16) | static_cast<uint64_t>(ep.index);
      ep.since_signal = 0;
      ep.signaled_pending++;
    } else {
      ep.since_signal++;
    }
    ep.outstanding++;
  }

  void Post(Endpoint& ep, ibv_send_wr* wr) {
    ibv_send_wr* bad = nullptr;
    if (int err = ibv_post_send(ep.qp, wr, &bad)) {
      throw std::runtime_error(std::string("ibv_post_send: ") +
                               std::strerror(err));
    }
  }

  // Polls one batch of send completions; returns the WRs retired.
  uint32_t PollSend() {
    ibv_wc wc[32];
    const int n = ibv_poll_cq(fabric_.send_cq(), 32, wc);
    if (n < 0) throw std::runtime_error("ibv_poll_cq (send) failed");
    uint32_t retired = 0;
    for (int i = 0; i < n; ++i) {
      Endpoint& ep = *fabric_.endpoints().at(wc[i].wr_id & 0xffff);
      if (wc[i].status != IBV_WC_SUCCESS) {
        throw std::runtime_error(std::string("send completion error on peer ") +
                                 std::to_string(ep.index) + ": " +
                                 ibv_wc_status_str(wc[i].status));
      }
      const uint32_t covers = static_cast<uint32_t>(wc[i].wr_id >> 16);
      ep.outstanding -= covers;
      ep.signaled_pending--;
      retired += covers;
    }
    return retired;
  }

  void Reserve(Endpoint& ep, uint32_t n, uint32_t limit) {
    Spinner spin(timeout_ticks_, "waiting for send completions", yield_);
    while (ep.outstanding + n > limit) {
      if (ep.signaled_pending == 0) {
        throw std::logic_error("send queue full with no signaled WR");
      }
      if (PollSend() == 0) spin.Spin();
    }
  }

  void Drain(Endpoint& ep) {
    Spinner spin(timeout_ticks_, "draining send completions", yield_);
    while (ep.outstanding > 0) {
      if (ep.signaled_pending == 0) {
        throw std::logic_error("unsignaled WRs left at end of phase");
      }
      if (PollSend() == 0) spin.Spin();
    }
  }

  // Consumes up to `max` receive completions (0 = any number available).
  int PollRecv(int max) {
    ibv_wc wc[32];
    const int want = max > 0 ? std::min(max, 32) : 32;
    const int n = ibv_poll_cq(fabric_.recv_cq(), want, wc);
    if (n < 0) throw std::runtime_error("ibv_poll_cq (recv) failed");
    for (int i = 0; i < n; ++i) {
      Endpoint& ep = *fabric_.endpoints().at(wc[i].wr_id);
      if (wc[i].status != IBV_WC_SUCCESS) {
        throw std::runtime_error(
            std::string("receive completion error on peer ") +
            std::to_string(ep.index) + ": " + ibv_wc_status_str(wc[i].status));
      }
      ep.posted_recvs--;
    }
    return n;
  }

  void WaitRecv(int n) {
    Spinner spin(timeout_ticks_, "waiting for a message from a peer", yield_);
    while (n > 0) {
      int got = PollRecv(n);
      if (got == 0 && event_) {
        // Arm, re-poll (a completion may have slipped in), then sleep.
        if (ibv_req_notify_cq(fabric_.recv_cq(), 0)) {
          throw std::runtime_error("ibv_req_notify_cq failed");
        }
        got = PollRecv(n);
        if (got == 0) SleepForRecvEvent();
      } else if (got == 0) {
        spin.Spin();
      }
      n -= got;
    }
  }

  void SleepForRecvEvent() {
    ibv_comp_channel* ch = fabric_.recv_channel();
    pollfd p{ch->fd, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(options_.timeout_s * 1000));
    if (r == 0)
      throw std::runtime_error("timed out waiting for a message from the root");
    if (r < 0 && errno != EINTR)
      throw std::runtime_error("poll on completion channel failed");
    if (r > 0) {
      ibv_cq* cq = nullptr;
      void* ctx = nullptr;
      if (ibv_get_cq_event(ch, &cq, &ctx))
        throw std::runtime_error("ibv_get_cq_event failed");
      ibv_ack_cq_events(cq, 1);
    }
  }

  void WaitTag(Endpoint& ep, size_t size, uint8_t tag) {
    volatile uint8_t* p = ep.recv_buf + size - 1;
    Spinner spin(timeout_ticks_, "waiting for an RDMA write from a peer",
                 yield_);
    while (*p != tag) {
      CpuRelax();
      spin.Spin();
    }
  }

  void RefillIfLow(Endpoint& ep) {
    const uint32_t depth = fabric_.config().rq_depth;
    if (ep.posted_recvs <= depth / 2)
      fabric_.RefillRecvs(ep, depth - ep.posted_recvs);
  }

  void ZeroRecv(Endpoint& ep, size_t size) {
    std::memset(ep.recv_buf, 0, size);
  }

  // ---- peer side -------------------------------------------------------
  static Message ParseMessage(const json& cmd) {
    Message m;
    m.op = internal::ParseOp(cmd.at("op").get<std::string>());
    m.size = cmd.at("size").get<size_t>();
    m.inl = cmd.at("inline").get<bool>();
    return m;
  }

  void Serve(Control& control) {
    Endpoint& ep = *fabric_.endpoints().at(0);
    const uint32_t sq = fabric_.config().sq_depth;
    for (;;) {
      const json cmd = control.Recv();
      const std::string type = cmd.at("type").get<std::string>();
      if (type == "quit") return;
      if (type == "echo") {
        const Message m = ParseMessage(cmd);
        const uint64_t count = cmd.at("count").get<uint64_t>();
        ZeroRecv(ep, m.size);
        RefillIfLow(ep);
        control.Send({{"type", "ready"}});
        ibv_send_wr wr;
        ibv_sge sge;
        for (uint64_t k = 0; k < count; ++k) {
          if (m.op == Op::kSend) {
            WaitRecv(1);
          } else {
            WaitTag(ep, m.size, Tag(k));
          }
          Reserve(ep, 1, sq);
          Prepare(ep, m, Tag(k), false, 1, wr, sge);
          Post(ep, &wr);
          RefillIfLow(ep);
        }
        Drain(ep);
        control.Send({{"type", "done"}});
      } else if (type == "initiate") {
        const Message m = ParseMessage(cmd);
        const uint64_t count = cmd.at("count").get<uint64_t>();
        const uint64_t warmup = cmd.at("warmup").get<uint64_t>();
        Recorder rec(cmd.at("cycle").get<uint64_t>(),
                     cmd.at("raw_limit").get<uint64_t>());
        ZeroRecv(ep, m.size);
        RefillIfLow(ep);
        ibv_send_wr wr;
        ibv_sge sge;
        for (uint64_t k = 0; k < count; ++k) {
          Reserve(ep, 1, sq);
          Prepare(ep, m, Tag(k), false, 1, wr, sge);
          const uint64_t t0 = ReadTicks();
          Post(ep, &wr);
          if (m.op == Op::kSend) {
            WaitRecv(1);
          } else {
            WaitTag(ep, m.size, Tag(k));
          }
          const uint64_t t1 = ReadTicks();
          if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1));
          RefillIfLow(ep);
        }
        Drain(ep);
        control.Send({{"type", "result"}, {"recorder", rec.ToJson()}});
      } else if (type == "sink") {
        const uint64_t count = cmd.at("count").get<uint64_t>();
        Spinner spin(timeout_ticks_, "sinking messages", yield_);
        for (uint64_t got = 0; got < count;) {
          int n =
              PollRecv(static_cast<int>(std::min<uint64_t>(32, count - got)));
          if (n == 0 && event_) {
            WaitRecv(1);
            n = 1;
          } else if (n == 0) {
            spin.Spin();
          }
          got += static_cast<uint64_t>(n);
          RefillIfLow(ep);
        }
        control.Send({{"type", "done"}});
      } else if (type == "stream") {
        const Message m = ParseMessage(cmd);
        control.Send({{"type", "ready"}});
        Recorder rec;
        const uint64_t ticks =
            Stream(ep, m, cmd.at("count").get<uint64_t>(),
                   cmd.at("window").get<uint32_t>(),
                   cmd.at("post_list").get<uint32_t>(),
                   cmd.at("cq_mod").get<uint32_t>(),
                   cmd.at("expect_recv").get<uint64_t>(), rec);
        control.Send(
            {{"type", "done"}, {"elapsed_ns", timer_.TicksToNs(ticks)}});
      } else {
        throw std::runtime_error("unknown command '" + type + "' from root");
      }
    }
  }

  // Streams `count` messages on `ep` with at most `window` outstanding,
  // `post_list` WRs per post, while consuming `expect_recv` receives.
  // Returns elapsed ticks; records per-message completion intervals.
  uint64_t Stream(Endpoint& ep, const Message& m, uint64_t count,
                  uint32_t window, uint32_t post_list, uint32_t cq_mod,
                  uint64_t expect_recv, Recorder& rec) {
    const uint32_t limit = std::min(window, fabric_.config().sq_depth);
    const uint32_t list = std::max<uint32_t>(1, std::min(post_list, limit));
    const uint32_t signal_every =
        std::max<uint32_t>(1, std::min(cq_mod, limit - list + 1));
    std::vector<ibv_send_wr> wrs(list);
    std::vector<ibv_sge> sges(list);
    uint64_t posted = 0, recv_left = expect_recv;
    Spinner spin(timeout_ticks_, "streaming", yield_);
    const uint64_t start = ReadTicks();
    uint64_t last = start;
    while (posted < count || ep.outstanding > 0 || recv_left > 0) {
      const uint32_t n =
          static_cast<uint32_t>(std::min<uint64_t>(list, count - posted));
      bool progress = false;
      if (posted < count && ep.outstanding + n <= limit) {
        for (uint32_t j = 0; j < n; ++j) {
          const bool last_wr = posted + j + 1 == count;
          Prepare(ep, m, Tag(posted + j), last_wr, signal_every, wrs[j],
                  sges[j]);
          wrs[j].next = j + 1 < n ? &wrs[j + 1] : nullptr;
        }
        Post(ep, &wrs[0]);
        posted += n;
        progress = true;
      } else if (ep.outstanding > 0) {
        const uint32_t retired = PollSend();
        if (retired > 0) {
          const uint64_t now = ReadTicks();
          rec.Add(timer_.TicksToNs(now - last) / retired);
          last = now;
          progress = true;
        }
      }
      if (recv_left > 0) {
        const int got = PollRecv(0);
        if (got > 0) {
          recv_left -= static_cast<uint64_t>(got);
          RefillIfLow(ep);
          progress = true;
        }
      }
      if (!progress) spin.Spin();
    }
    return ReadTicks() - start;
  }

  // ---- root side -------------------------------------------------------
  std::vector<Endpoint*> Group(int p) {
    std::vector<Endpoint*> g;
    for (int i = 0; i < p; ++i)
      g.push_back(fabric_.endpoints().at(static_cast<size_t>(i)).get());
    return g;
  }

  json Cmd(const std::string& type, const Message& m, uint64_t count) const {
    return {{"type", type},
            {"op", internal::OpName(m.op)},
            {"size", m.size},
            {"inline", m.inl},
            {"count", count}};
  }

  // 1:n round trips: post one message to each of p peers, wait for every
  // reply. Each sample is the round trip divided by `divisor`.
  Recorder RoundTrip1n(std::vector<Control>& controls, int p, const Message& m,
                       uint64_t iters, uint64_t warmup, double divisor) {
    std::vector<Endpoint*> g = Group(p);
    Recorder rec(options_.cycle, options_.raw_limit);
    const uint64_t count = iters + warmup;
    const uint32_t sq = fabric_.config().sq_depth;
    if (m.op == Op::kRead) {
      Endpoint& ep = *g[0];
      ibv_send_wr wr;
      ibv_sge sge;
      for (uint64_t k = 0; k < count; ++k) {
        Reserve(ep, 1, sq);
        Prepare(ep, m, Tag(k), true, 1, wr, sge);
        const uint64_t t0 = ReadTicks();
        Post(ep, &wr);
        Spinner spin(timeout_ticks_, "waiting for an RDMA read", yield_);
        while (ep.signaled_pending > 0) {
          if (PollSend() == 0) spin.Spin();
        }
        const uint64_t t1 = ReadTicks();
        if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / divisor);
      }
      return rec;
    }
    for (Endpoint* ep : g) {
      ZeroRecv(*ep, m.size);
      RefillIfLow(*ep);
    }
    for (int i = 0; i < p; ++i)
      controls[static_cast<size_t>(i)].Send(Cmd("echo", m, count));
    for (int i = 0; i < p; ++i)
      controls[static_cast<size_t>(i)].Expect("ready", options_.timeout_s);
    std::vector<ibv_send_wr> wrs(static_cast<size_t>(p));
    std::vector<ibv_sge> sges(static_cast<size_t>(p));
    for (uint64_t k = 0; k < count; ++k) {
      for (int i = 0; i < p; ++i) {
        Reserve(*g[static_cast<size_t>(i)], 1, sq);
        Prepare(*g[static_cast<size_t>(i)], m, Tag(k), false, 1,
                wrs[static_cast<size_t>(i)], sges[static_cast<size_t>(i)]);
      }
      const uint64_t t0 = ReadTicks();
      for (int i = 0; i < p; ++i)
        Post(*g[static_cast<size_t>(i)], &wrs[static_cast<size_t>(i)]);
      if (m.op == Op::kSend) {
        WaitRecv(p);
      } else {
        for (Endpoint* ep : g) WaitTag(*ep, m.size, Tag(k));
      }
      const uint64_t t1 = ReadTicks();
      if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / divisor);
      for (Endpoint* ep : g) RefillIfLow(*ep);
    }
    for (Endpoint* ep : g) Drain(*ep);
    for (int i = 0; i < p; ++i)
      controls[static_cast<size_t>(i)].Expect("done", options_.timeout_s);
    return rec;
  }

  // n:1 round trips: each of p peers sends to the root and times the reply;
  // the root replies to all once every peer's message is in. The peers'
  // distributions are merged.
  Recorder RoundTripN1(std::vector<Control>& controls, int p, const Message& m,
                       uint64_t iters, uint64_t warmup) {
    std::vector<Endpoint*> g = Group(p);
    const uint64_t count = iters + warmup;
    const uint32_t sq = fabric_.config().sq_depth;
    for (Endpoint* ep : g) {
      ZeroRecv(*ep, m.size);
      RefillIfLow(*ep);
    }
    json cmd = Cmd("initiate", m, count);
    cmd["warmup"] = warmup;
    cmd["cycle"] = options_.cycle;
    cmd["raw_limit"] = options_.raw_limit;
    for (int i = 0; i < p; ++i) controls[static_cast<size_t>(i)].Send(cmd);
    ibv_send_wr wr;
    ibv_sge sge;
    for (uint64_t k = 0; k < count; ++k) {
      if (m.op == Op::kSend) {
        WaitRecv(p);
      } else {
        for (Endpoint* ep : g) WaitTag(*ep, m.size, Tag(k));
      }
      for (Endpoint* ep : g) {
        Reserve(*ep, 1, sq);
        Prepare(*ep, m, Tag(k), false, 1, wr, sge);
        Post(*ep, &wr);
      }
      for (Endpoint* ep : g) RefillIfLow(*ep);
    }
    for (Endpoint* ep : g) Drain(*ep);
    Recorder merged(options_.cycle, options_.raw_limit);
    for (int i = 0; i < p; ++i) {
      const json r =
          controls[static_cast<size_t>(i)].Expect("result", options_.timeout_s);
      merged.Merge(Recorder::FromJson(r.at("recorder")));
    }
    return merged;
  }

  // o_s(p): time of ibv_post_send for p WRs, one call per peer (list ==
  // false) or one call with a list of p WRs on peer 0's QP (list == true);
  // samples are per WR.
  Recorder SendOverhead(std::vector<Control>& controls, int p, const Message& m,
                        bool list, uint64_t iters, uint64_t warmup) {
    std::vector<Endpoint*> g = Group(list ? 1 : p);
    const uint64_t count = iters + warmup;
    const uint32_t sq = fabric_.config().sq_depth;
    if (m.op == Op::kSend) {
      for (size_t i = 0; i < g.size(); ++i) {
        controls[i].Send(
            {{"type", "sink"},
             {"count", list ? count * static_cast<uint64_t>(p) : count}});
      }
    }
    Recorder rec(options_.cycle, options_.raw_limit);
    std::vector<ibv_send_wr> wrs(static_cast<size_t>(p));
    std::vector<ibv_sge> sges(static_cast<size_t>(p));
    for (uint64_t k = 0; k < count; ++k) {
      if (list) {
        Reserve(*g[0], static_cast<uint32_t>(p), sq);
        for (int j = 0; j < p; ++j) {
          Prepare(*g[0], m, Tag(k), false, 1, wrs[static_cast<size_t>(j)],
                  sges[static_cast<size_t>(j)]);
          wrs[static_cast<size_t>(j)].next =
              j + 1 < p ? &wrs[static_cast<size_t>(j + 1)] : nullptr;
        }
        const uint64_t t0 = ReadTicks();
        Post(*g[0], &wrs[0]);
        const uint64_t t1 = ReadTicks();
        if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / p);
      } else {
        for (int i = 0; i < p; ++i) {
          Reserve(*g[static_cast<size_t>(i)], 1, sq);
          Prepare(*g[static_cast<size_t>(i)], m, Tag(k), false, 1,
                  wrs[static_cast<size_t>(i)], sges[static_cast<size_t>(i)]);
        }
        const uint64_t t0 = ReadTicks();
        for (int i = 0; i < p; ++i)
          Post(*g[static_cast<size_t>(i)], &wrs[static_cast<size_t>(i)]);
        const uint64_t t1 = ReadTicks();
        if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / p);
      }
    }
    for (Endpoint* ep : g) Drain(*ep);
    if (m.op == Op::kSend) {
      for (size_t i = 0; i < g.size(); ++i)
        controls[i].Expect("done", options_.timeout_s);
    }
    return rec;
  }

  // o_r(p): time of ibv_post_recv for p WRs, one call per QP or one list,
  // on local QPs held in INIT (receives may be posted before connecting);
  // a QP is reset to RESET and back to INIT when its queue is full.
  Recorder RecvOverhead(int p, bool list, uint64_t iters, uint64_t warmup) {
    EnsureRecvQps(p);
    const uint32_t depth = recv_qp_depth_;
    Recorder rec(options_.cycle, options_.raw_limit);
    std::vector<ibv_recv_wr> wrs(static_cast<size_t>(p));
    std::vector<ibv_sge> sges(static_cast<size_t>(p));
    Endpoint& ep = *fabric_.endpoints().at(0);
    for (uint64_t k = 0; k < iters + warmup; ++k) {
      const int qps = list ? 1 : p;
      const uint32_t per_qp = list ? static_cast<uint32_t>(p) : 1;
      for (int q = 0; q < qps; ++q) {
        if (recv_posted_[static_cast<size_t>(q)] + per_qp > depth)
          ResetRecvQp(q);
      }
      for (int j = 0; j < p; ++j) {
        sges[static_cast<size_t>(j)] = {
            reinterpret_cast<uintptr_t>(ep.recv_buf), 8, ep.mr->lkey};
        wrs[static_cast<size_t>(j)] = {};
        wrs[static_cast<size_t>(j)].wr_id = static_cast<uint64_t>(j);
        wrs[static_cast<size_t>(j)].sg_list = &sges[static_cast<size_t>(j)];
        wrs[static_cast<size_t>(j)].num_sge = 1;
        wrs[static_cast<size_t>(j)].next =
            list && j + 1 < p ? &wrs[static_cast<size_t>(j + 1)] : nullptr;
      }
      ibv_recv_wr* bad = nullptr;
      int err = 0;
      const uint64_t t0 = ReadTicks();
      if (list) {
        err = ibv_post_recv(recv_qps_[0].get(), &wrs[0], &bad);
      } else {
        for (int q = 0; q < p && !err; ++q) {
          err = ibv_post_recv(recv_qps_[static_cast<size_t>(q)].get(),
                              &wrs[static_cast<size_t>(q)], &bad);
        }
      }
      const uint64_t t1 = ReadTicks();
      if (err)
        throw std::runtime_error(std::string("ibv_post_recv: ") +
                                 std::strerror(err));
      for (int q = 0; q < qps; ++q)
        recv_posted_[static_cast<size_t>(q)] += per_qp;
      if (k >= warmup) rec.Add(timer_.ElapsedNs(t0, t1) / p);
    }
    return rec;
  }

 private:
  void EnsureRecvQps(int p) {
    if (!recv_cq_) {
      recv_cq_.reset(ibv_create_cq(fabric_.context(), 16, nullptr, nullptr, 0));
      if (!recv_cq_) throw std::runtime_error("ibv_create_cq (o_r)");
      ibv_device_attr dev{};
      ibv_query_device(fabric_.context(), &dev);
      recv_qp_depth_ =
          std::min<uint32_t>(1024, static_cast<uint32_t>(dev.max_qp_wr));
    }
    while (static_cast<int>(recv_qps_.size()) < p) {
      ibv_qp_init_attr attr{};
      attr.send_cq = recv_cq_.get();
      attr.recv_cq = recv_cq_.get();
      attr.qp_type = IBV_QPT_RC;
      attr.cap.max_send_wr = 1;
      attr.cap.max_recv_wr = recv_qp_depth_;
      attr.cap.max_send_sge = 1;
      attr.cap.max_recv_sge = 1;
      internal::QpPtr qp(ibv_create_qp(fabric_.pd(), &attr));
      if (!qp)
        throw std::runtime_error(std::string("ibv_create_qp (o_r): ") +
                                 std::strerror(errno));
      recv_qp_depth_ = std::min(recv_qp_depth_, attr.cap.max_recv_wr);
      recv_qps_.push_back(std::move(qp));
      recv_posted_.push_back(0);
      ToInit(recv_qps_.back().get());
    }
  }

  void ToInit(ibv_qp* qp) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = static_cast<uint8_t>(fabric_.config().ib_port);
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
    if (int err = ibv_modify_qp(qp, &attr,
                                IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                    IBV_QP_ACCESS_FLAGS)) {
      throw std::runtime_error(std::string("ibv_modify_qp INIT (o_r): ") +
                               std::strerror(err));
    }
  }

  void ResetRecvQp(int q) {
    ibv_qp* qp = recv_qps_[static_cast<size_t>(q)].get();
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RESET;
    if (int err = ibv_modify_qp(qp, &attr, IBV_QP_STATE)) {
      throw std::runtime_error(std::string("ibv_modify_qp RESET (o_r): ") +
                               std::strerror(err));
    }
    ToInit(qp);
    recv_posted_[static_cast<size_t>(q)] = 0;
  }

  Fabric& fabric_;
  const Timer& timer_;
  const Options& options_;
  uint64_t timeout_ticks_;
  std::string wait_;
  bool yield_;
  bool event_;
  // o_r measurement QPs (declared after the CQ: destroyed first).
  internal::CqPtr recv_cq_;
  std::vector<internal::QpPtr> recv_qps_;
  std::vector<uint32_t> recv_posted_;
  uint32_t recv_qp_depth_ = 0;
};

// ---- root drivers --------------------------------------------------------

uint64_t IterationsFor(const Options& o,
                       const std::function<Recorder(uint64_t)>& pilot,
                       double samples_per_iteration) {
  if (o.duration_s <= 0) return o.iters;
  // Duration runs: a short pilot estimates the time per iteration; the count
  // then goes to the peers, which follow exact counts.
  const Recorder r =
      pilot(std::min<uint64_t>(100, std::max<uint64_t>(10, o.iters)));
  const double per_iter =
      std::max(1.0, r.histogram().mean() * samples_per_iteration);
  return std::clamp<uint64_t>(
      static_cast<uint64_t>(o.duration_s * 1e9 / per_iter), 1,
      2'000'000'000ull);
}

// RDMA read has no inline variant: run it once.
bool SkipInline(const std::string& op, bool inl, const Options& o) {
  return op == "read" && inl && o.inline_modes.size() > 1;
}

json ResultJson(const Recorder& rec, const Options& o) {
  json j = {{"stats", StatsJson(rec)}};
  if (o.raw_limit > 0) j["raw_ns"] = rec.raw();
  return j;
}

json RunLat(Bench& bench, std::vector<Control>& controls, const Options& o,
            std::ostream& progress) {
  json results = json::array();
  for (const std::string& op_name : o.ops) {
    for (bool inl : o.inline_modes) {
      if (SkipInline(op_name, inl, o)) continue;
      for (size_t size : o.sizes) {
        Message m{internal::ParseOp(op_name), size, inl};
        const double divisor = m.op == Op::kRead ? 1.0 : 2.0;
        const uint64_t iters = IterationsFor(
            o,
            [&](uint64_t n) {
              return bench.RoundTrip1n(controls, 1, m, n, 0, divisor);
            },
            1.0);
        progress << "lat " << op_name << (bench.Inline(m) ? " inline" : "")
                 << " size " << size << " iters " << iters << "\n";
        const Recorder rec =
            bench.RoundTrip1n(controls, 1, m, iters, o.warmup, divisor);
        json r = ResultJson(rec, o);
        r["op"] = op_name;
        r["size"] = size;
        r["inline"] = bench.Inline(m);
        r["inline_requested"] = inl;
        r["iterations"] = iters;
        r["metric"] = m.op == Op::kRead ? "rtt" : "rtt/2";
        results.push_back(r);
      }
    }
  }
  return results;
}

json RunBw(Bench& bench, Fabric& fabric, std::vector<Control>& controls,
           const Options& o, const Timer& timer, std::ostream& progress) {
  json results = json::array();
  Endpoint& ep = *fabric.endpoints().at(0);
  Control& control = controls.at(0);
  for (const std::string& op_name : o.ops) {
    for (bool inl : o.inline_modes) {
      if (SkipInline(op_name, inl, o)) continue;
      for (size_t size : o.sizes) {
        Message m{internal::ParseOp(op_name), size, inl};
        auto run = [&](uint64_t count,
                       Recorder& rec) -> std::pair<uint64_t, double> {
          const bool bidir = o.bidirectional && m.op != Op::kRead;
          uint64_t expect_recv = 0;
          if (bidir) {
            const json cmd = {{"type", "stream"},
                              {"op", op_name},
                              {"size", size},
                              {"inline", inl},
                              {"count", count},
                              {"window", o.window},
                              {"post_list", o.post_list},
                              {"cq_mod", o.cq_mod},
                              {"expect_recv", m.op == Op::kSend ? count : 0}};
            control.Send(cmd);
            control.Expect("ready", o.timeout_s);
            expect_recv = m.op == Op::kSend ? count : 0;
          } else if (m.op == Op::kSend) {
            control.Send({{"type", "sink"}, {"count", count}});
          }
          const uint64_t ticks = bench.Stream(
              ep, m, count, o.window, o.post_list, o.cq_mod, expect_recv, rec);
          double peer_ns = 0;
          if (bidir || m.op == Op::kSend) {
            const json done = control.Expect("done", o.timeout_s);
            peer_ns = done.value("elapsed_ns", 0.0);
          }
          return {ticks, peer_ns};
        };
        uint64_t count = o.iters;
        if (o.duration_s > 0) {
          Recorder pilot;
          const auto [ticks, peer_ns] =
              run(std::min<uint64_t>(o.iters, 1000), pilot);
          (void)peer_ns;
          const double per_msg =
              timer.TicksToNs(ticks) /
              static_cast<double>(std::min<uint64_t>(o.iters, 1000));
          count = std::clamp<uint64_t>(
              static_cast<uint64_t>(o.duration_s * 1e9 /
                                    std::max(1.0, per_msg)),
              1, 2'000'000'000ull);
        } else if (o.warmup > 0) {
          Recorder warm;
          run(std::min<uint64_t>(o.warmup, o.iters), warm);
        }
        progress << "bw " << op_name << (bench.Inline(m) ? " inline" : "")
                 << " size " << size << " msgs " << count << "\n";
        Recorder rec(o.cycle, o.raw_limit);
        const auto [ticks, peer_ns] = run(count, rec);
        const double ns = timer.TicksToNs(ticks);
        const bool bidir = o.bidirectional && m.op != Op::kRead;
        const double bytes = static_cast<double>(count) *
                             static_cast<double>(size) * (bidir ? 2 : 1);
        json r = ResultJson(rec, o);
        r["op"] = op_name;
        r["size"] = size;
        r["inline"] = bench.Inline(m);
        r["iterations"] = count;
        r["bidirectional"] = bidir;
        r["elapsed_ns"] = ns;
        if (bidir) r["peer_elapsed_ns"] = peer_ns;
        r["bw_MiBps"] = bytes / (ns / 1e9) / (1 << 20);
        r["bw_Gbps"] = bytes * 8 / ns;
        r["msg_rate_Mpps"] =
            static_cast<double>(count) * (bidir ? 2 : 1) / (ns / 1e3);
        r["metric"] = "per-message completion interval";
        results.push_back(r);
      }
    }
  }
  return results;
}

json Point(int p, const Recorder& rec, const Options& o) {
  const LogHistogram& h = rec.histogram();
  json pt = {{"p", p},
             {"min_ns", h.min()},
             {"median_ns", h.Quantile(0.5)},
             {"mean_ns", h.mean()},
             {"p99_ns", h.Quantile(0.99)},
             {"samples", h.count()},
             {"stats", StatsJson(rec)}};
  if (o.raw_limit > 0) pt["raw_ns"] = rec.raw();
  return pt;
}

json RunLop(Bench& bench, std::vector<Control>& controls, const Options& o,
            std::ostream& progress) {
  // name → curve (ordered for stable output)
  std::vector<json> curves;
  std::map<std::string, size_t> index;
  auto curve = [&](const std::string& name, json meta) -> json& {
    auto it = index.find(name);
    if (it == index.end()) {
      meta["name"] = name;
      meta["points"] = json::array();
      index[name] = curves.size();
      curves.push_back(meta);
      return curves.back();
    }
    return curves[it->second];
  };
  auto sfx = [](bool inl) {
    return inl ? std::string("inline") : std::string("normal");
  };
  for (int p : o.p_values) {
    for (const std::string& op_name : o.ops) {
      for (bool inl : o.inline_modes) {
        Message m{internal::ParseOp(op_name), o.sizes.at(0), inl};
        const bool eff_inline = bench.Inline(m);
        progress << "lop p=" << p << " " << op_name << " " << sfx(inl) << "\n";
        const uint64_t iters = IterationsFor(
            o,
            [&](uint64_t n) {
              return bench.RoundTrip1n(controls, p, m, n, 0, 1.0);
            },
            1.0);
        const Recorder r1n =
            bench.RoundTrip1n(controls, p, m, iters, o.warmup, 1.0);
        curve("rtt2_1n_" + op_name + "_" + sfx(inl),
              {{"kind", "rtt"},
               {"pattern", "1:n"},
               {"op", op_name},
               {"inline", eff_inline},
               {"list", false},
               {"size", m.size}})["points"]
            .push_back(Point(p, r1n, o));
        const Recorder rn1 = bench.RoundTripN1(controls, p, m, iters, o.warmup);
        curve("rtt2_n1_" + op_name + "_" + sfx(inl),
              {{"kind", "rtt"},
               {"pattern", "n:1"},
               {"op", op_name},
               {"inline", eff_inline},
               {"list", false},
               {"size", m.size}})["points"]
            .push_back(Point(p, rn1, o));
        for (bool list : {false, true}) {
          const Recorder os =
              bench.SendOverhead(controls, p, m, list, iters, o.warmup);
          const std::string name = "os_" + op_name +
                                   (list ? "_list" : "_single") +
                                   (inl ? "_inline" : "");
          curve(name, {{"kind", "overhead"},
                       {"side", "send"},
                       {"op", op_name},
                       {"inline", eff_inline},
                       {"list", list},
                       {"size", m.size}})["points"]
              .push_back(Point(p, os, o));
        }
      }
    }
    for (bool list : {false, true}) {
      const Recorder orr = bench.RecvOverhead(p, list, o.iters, o.warmup);
      curve(std::string("or_recv_") + (list ? "list" : "single"),
            {{"kind", "overhead"},
             {"side", "recv"},
             {"op", "recv"},
             {"inline", false},
             {"list", list}})["points"]
          .push_back(Point(p, orr, o));
    }
  }
  std::vector<json> derived = lop::DeriveLatencyCurves(curves);
  json out = {{"curves", json::array()}};
  for (json& c : curves) out["curves"].push_back(std::move(c));
  for (json& c : derived) out["curves"].push_back(std::move(c));
  out[lop::kDefinitions] = lop::Definitions();
  return out;
}

}  // namespace

Options Normalize(Options o) {
  if (o.mode != "lat" && o.mode != "bw" && o.mode != "lop") {
    throw std::invalid_argument("unknown mode '" + o.mode +
                                "' (expected lat, bw or lop)");
  }
  if (o.ops.empty()) {
    o.ops = o.mode == "lop" ? std::vector<std::string>{"send", "write"}
                            : std::vector<std::string>{"send"};
  }
  for (const std::string& op : o.ops) {
    internal::ParseOp(op);
    if (o.mode == "lop" && op == "read") {
      throw std::invalid_argument("lop measures send and write only");
    }
  }
  if (o.inline_modes.empty()) {
    o.inline_modes = o.mode == "lop" ? std::vector<bool>{true, false}
                                     : std::vector<bool>{false};
  }
  if (o.sizes.empty()) {
    o.sizes = {o.mode == "bw"    ? size_t{65536}
               : o.mode == "lop" ? size_t{8}
                                 : size_t{2}};
  }
  if (o.mode == "lop" && o.sizes.size() != 1) {
    throw std::invalid_argument("lop takes one message size");
  }
  if (o.peers < 1 || o.peers > 4096)
    throw std::invalid_argument("--peers must be 1..4096");
  if (o.mode != "lop" && o.peers != 1) {
    throw std::invalid_argument("--peers applies to lop only");
  }
  if (o.p_values.empty()) {
    for (int p = 1; p <= o.peers; ++p) o.p_values.push_back(p);
  }
  for (int p : o.p_values) {
    if (p > o.peers) {
      throw std::invalid_argument("p = " + std::to_string(p) +
                                  " exceeds --peers " +
                                  std::to_string(o.peers));
    }
  }
  if (o.iters == 0) throw std::invalid_argument("--iters must be > 0");
  if (o.window == 0) throw std::invalid_argument("--window must be > 0");
  if (o.post_list == 0 || o.post_list > o.window) {
    throw std::invalid_argument("--post-list must be 1..window");
  }
  if (o.cycle == 0) throw std::invalid_argument("--cycle must be > 0");
  o.sq_depth =
      std::max({o.sq_depth, o.window, static_cast<uint32_t>(2 * o.peers), 16u});
  return o;
}

nlohmann::json RunBenchmark(const Options& raw_options,
                            std::ostream& progress) {
  const Options o = Normalize(raw_options);
  Timer timer = Timer::Calibrate();
  internal::FabricConfig cfg;
  cfg.cm = o.cm;
  cfg.ib_dev = o.ib_dev;
  cfg.ib_port = o.ib_port;
  cfg.gid_index = o.gid_index;
  cfg.max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  cfg.sq_depth = o.sq_depth;
  cfg.rq_depth = o.rq_depth;
  cfg.max_inline = o.max_inline;
  cfg.timeout_s = o.timeout_s;
  cfg.wait = o.wait;
  Fabric fabric(cfg);
  if (!o.host.empty()) {
    Control control = fabric.ConnectToRoot(o.host, o.port);
    progress << "connected to " << o.host << ":" << o.port << " via "
             << fabric.cm_method() << "\n";
    Bench bench(fabric, timer, o);
    try {
      bench.Serve(control);
    } catch (const std::exception& e) {
      try {
        control.Send({{"type", "error"}, {"message", e.what()}});
      } catch (const std::exception&) {
      }
      throw;
    }
    return {{"tool", "verbsbench"},
            {"mode", o.mode},
            {"role", "peer"},
            {"device", fabric.DeviceJson()},
            {"timer", timer.ToJson()}};
  }
  internal::Fd listener = Control::Listen(o.bind, o.port);
  progress << "waiting for " << o.peers << " peer(s) on port " << o.port
           << "\n";
  std::vector<Control> controls;
  fabric.AcceptPeers(listener, o.bind, o.port, o.peers, controls);
  progress << "connected " << o.peers << " peer(s) via " << fabric.cm_method()
           << "\n";
  Bench bench(fabric, timer, o);
  json result = {{"tool", "verbsbench"},
                 {"mode", o.mode},
                 {"params", o.ToJson()},
                 {"device", fabric.DeviceJson()}};
  if (o.mode == "lat") {
    result["results"] = RunLat(bench, controls, o, progress);
  } else if (o.mode == "bw") {
    result["results"] = RunBw(bench, fabric, controls, o, timer, progress);
  } else {
    result["lop"] = RunLop(bench, controls, o, progress);
  }
  // Confidence times the timer during the run too: a second measurement
  // after the run shows whether its overhead drifted.
  timer.RemeasureOverhead(20000);
  result["timer"] = timer.ToJson();
  for (Control& c : controls) {
    try {
      c.Send({{"type", "quit"}});
    } catch (const std::exception&) {
    }
  }
  return result;
}

}  // namespace verbsbench
