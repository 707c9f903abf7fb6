// ibv_wr_* batches under emulation are recorded and replayed after the
// waits: no wait may run while the provider holds its send-queue lock (from
// wr_start to wr_complete), and the provider must receive each batch
// exactly as the application built it, even when the application reuses
// its buffers before wr_complete or builds on several QPs at once.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "emulate/tsc.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

class WrBatchTest : public ShimTest {
 protected:
  // The post's arrival at the device, after wr_complete was entered at t0.
  static uint64_t DeviceDelay(FakeDevice& d, uint64_t t0) {
    return d.last_post_tsc.load() - t0;
  }
  static uint64_t Ticks(double ns) { return Cal().NsToTicks(ns); }
  // Afresh: latency `ns` alone, or with the report on too.
  void ConfigureLatencyWithReport(double ns, bool report) {
    ResetForTesting();
    Settings s;
    s.engine.latency_ns = ns;
    if (report) s.report = "stderr";
    Configure(s);
  }
  // Posts with `post` `n` times; the shortest of the provider's longest
  // send-queue lock holds in each. A wait under the lock would be in every
  // one; a thread preempted while it holds the lock (tests in parallel,
  // sanitizers) is in some.
  template <class Post>
  static uint64_t ShortestLockHold(FakeDevice& d, int n, Post&& post) {
    uint64_t shortest = UINT64_MAX;
    for (int i = 0; i < n; ++i) {
      d.sq_held_max_ticks.store(0);
      post();
      shortest = std::min(shortest, d.sq_held_max_ticks.load());
    }
    return shortest;
  }
  // One READ or WRITE of `bytes` in an ibv_wr_* batch; returns the time
  // from the wr_complete call to the post's arrival at the device.
  static uint64_t PostOne(FakeDevice& d, ibv_qp_ex* x, ibv_wr_opcode op,
                          uint32_t bytes) {
    ibv_wr_start(x);
    if (op == IBV_WR_RDMA_READ) {
      ibv_wr_rdma_read(x, 1, 0x2000);
    } else {
      ibv_wr_rdma_write(x, 1, 0x2000);
    }
    ibv_wr_set_sge(x, 1, 0x1000, bytes);
    const uint64_t t0 = emulate::ReadTsc();
    EXPECT_EQ(ibv_wr_complete(x), 0);
    return DeviceDelay(d, t0);
  }
};

// A READ owes two one-way latencies; a 4 ms total wait must happen before
// the provider's wr_start, not between it and wr_complete.
TEST_F(WrBatchTest, ReadsSecondLegIsNotWaitedUnderTheProvidersLock) {
  for (const bool report : {true, false}) {
    SCOPED_TRACE(report ? "with the report" : "latency alone");
    ConfigureLatencyWithReport(2'000'000, report);
    FakeDevice d("fake0");
    FakeQpEnv e = MakeQp(d, /*wr_api=*/true);
    const uint64_t hold = ShortestLockHold(d, 3, [&] {
      EXPECT_GE(PostOne(d, e.qpx, IBV_WR_RDMA_READ, 64),
                Ticks(4'000'000) - Ticks(50'000));
    });
    EXPECT_LT(hold, Ticks(1'000'000));
    EXPECT_EQ(d.calls_outside_batch.load(), 0u);
    DestroyQp(e.qp);
  }
}

// Pacing 256 KiB at 1 Gbit/s is a 2 ms wait, also outside the lock; so is
// the latency on the mlx5 personality after a RESET cycle.
TEST_F(WrBatchTest, PacingWaitIsNotUnderTheProvidersLock) {
  ConfigureBandwidth("1Gbit/s", 0, emulate::BwMode::kPace, 100e9);
  FakeDevice d("fake0");
  FakeQpEnv e = MakeQp(d, /*wr_api=*/true);
  const uint64_t start = emulate::ReadTsc();
  const uint64_t hold = ShortestLockHold(
      d, 3, [&] { PostOne(d, e.qpx, IBV_WR_RDMA_WRITE, 256 * 1024); });
  // Three 2.1 ms messages on a 1 Gbit/s link: paced apart. At most two ride
  // the link's catch-up window, so the third goes out a message's time
  // after the first post began at the earliest (measured from the start: a
  // post preempted after its release only goes out later).
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_GE(posts[2].tsc - start, Ticks(2'000'000));
  EXPECT_LT(hold, Ticks(1'000'000));
}

TEST_F(WrBatchTest, Mlx5PersonalityAfterResetWaitsOutsideTheLock) {
  ConfigureLatency(2'000'000);
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv e = MakeQp(d, /*wr_api=*/true);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE), 0);
  Connect(e.qp);
  const uint64_t hold = ShortestLockHold(d, 3, [&] {
    EXPECT_GE(PostOne(d, e.qpx, IBV_WR_RDMA_WRITE, 64),
              Ticks(2'000'000) - Ticks(50'000));
  });
  EXPECT_LT(hold, Ticks(1'000'000));
  EXPECT_EQ(d.complete_errors.load(), 0u);
}

// One batch of every kind of data, its buffers overwritten before
// wr_complete; the provider must see what a native post of the same batch
// shows it.
void BuildMixedBatch(ibv_qp_ex* x, bool scribble) {
  ibv_sge sges[2] = {{0x1000, 100, 7}, {0x3000, 200, 7}};
  char text[] = "inline payload";
  char part1[] = "first", part2[] = "second part";
  ibv_data_buf bufs[2] = {{part1, 5}, {part2, 11}};
  uint64_t atomic_value = 0x1122334455667788;
  ibv_wr_start(x);
  x->wr_id = 1;
  x->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_rdma_write(x, 1, 0x2000);
  ibv_wr_set_sge_list(x, 2, sges);
  x->wr_id = 2;
  x->wr_flags = 0;
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, text, sizeof text - 1);
  ibv_wr_set_ud_addr(x, nullptr, 77, 0x11111111);
  x->wr_id = 3;
  ibv_wr_send_imm(x, 0x5);
  ibv_wr_set_inline_data_list(x, 2, bufs);
  x->wr_id = 4;
  x->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_atomic_write(x, 1, 0x4000, &atomic_value);
  if (scribble) {
    std::memset(sges, 0, sizeof sges);
    std::memset(text, '#', sizeof text);
    std::memset(part1, '#', sizeof part1);
    std::memset(part2, '#', sizeof part2);
    bufs[0].length = 0;
    atomic_value = 0;
    x->wr_id = 999;
  }
  ASSERT_EQ(ibv_wr_complete(x), 0);
}

std::string Describe(const std::vector<PostRecord>& posts) {
  std::string s;
  for (const PostRecord& p : posts) {
    s += std::to_string(p.wr_id) + " op" + std::to_string(p.opcode) + " " +
         std::to_string(p.bytes) + "B qpn" + std::to_string(p.remote_qpn) +
         " #" + std::to_string(p.digest) + "\n";
  }
  return s;
}

TEST_F(WrBatchTest, ProviderSeesTheBatchAsBuiltThoughBuffersWereReused) {
  FakeDevice native("fake0");
  FakeQpEnv n = MakeFakeQp(native, {.through_shim = false, .wr_api = true});
  BuildMixedBatch(n.qpx, /*scribble=*/false);
  ConfigureLatency(5'000);
  FakeDevice d("fake1");
  FakeQpEnv e = MakeQp(d, /*wr_api=*/true);
  BuildMixedBatch(e.qpx, /*scribble=*/true);
  EXPECT_EQ(Describe(d.Posts()), Describe(native.Posts()));
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
  ibv_wc wc[4];
  EXPECT_EQ(ibv_poll_cq(e.cq, 4, wc), 2) << "WRs 1 and 4 were signaled";
}

TEST_F(WrBatchTest, AbortedBatchNeverReachesTheProvider) {
  ConfigureLatency(5'000);
  FakeDevice d("fake0");
  FakeQpEnv e = MakeQp(d, /*wr_api=*/true);
  ibv_wr_start(e.qpx);
  e.qpx->wr_id = 1;
  ibv_wr_rdma_write(e.qpx, 1, 0x2000);
  ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
  ibv_wr_abort(e.qpx);
  ibv_wr_start(e.qpx);
  e.qpx->wr_id = 2;
  ibv_wr_send(e.qpx);
  ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].wr_id, 2u);
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
  EXPECT_EQ(Counters(e.qp).wrs, 1u);
}

TEST_F(WrBatchTest, BatchesOnTwoQpsBuiltAtOnce) {
  ConfigureLatency(5'000);
  FakeDevice d("fake0");
  FakeQpEnv a = MakeQp(d, /*wr_api=*/true);
  FakeQpEnv b = MakeQp(d, /*wr_api=*/true);
  ibv_wr_start(a.qpx);
  ibv_wr_start(b.qpx);
  a.qpx->wr_id = 10;
  ibv_wr_rdma_write(a.qpx, 1, 0x2000);
  b.qpx->wr_id = 20;
  ibv_wr_send(b.qpx);
  ibv_wr_set_sge(a.qpx, 1, 0x1000, 100);
  ibv_wr_set_sge(b.qpx, 1, 0x1000, 200);
  ASSERT_EQ(ibv_wr_complete(b.qpx), 0);
  ASSERT_EQ(ibv_wr_complete(a.qpx), 0);
  std::map<uint64_t, uint64_t> bytes_of;
  for (const PostRecord& p : d.Posts()) bytes_of[p.wr_id] = p.bytes;
  EXPECT_EQ(bytes_of, (std::map<uint64_t, uint64_t>{{10, 100}, {20, 200}}));
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

// Threads sharing one QP: each batch carries its own thread's wr_id (the
// application writes qpx->wr_id between wr_start and wr_complete), once.
void ExpectOwnWrIds(FakeDevice& d, const FakeQpEnv& e) {
  constexpr int kThreads = 4;
  constexpr uint64_t kBatches = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&e, t] {
      for (uint64_t i = 0; i < kBatches; ++i) {
        ibv_wr_start(e.qpx);
        e.qpx->wr_id = (static_cast<uint64_t>(t) << 32) | i;
        ibv_wr_rdma_write(e.qpx, 1, 0x2000);
        ibv_wr_set_sge(e.qpx, 1, 0x1000, 64 + t);
        EXPECT_EQ(ibv_wr_complete(e.qpx), 0);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<uint64_t> next(kThreads, 0);
  for (const PostRecord& p : d.Posts()) {
    const uint64_t t = p.wr_id >> 32;
    ASSERT_LT(t, static_cast<uint64_t>(kThreads));
    EXPECT_EQ(p.wr_id & 0xffffffff, next[t]) << "thread " << t;
    EXPECT_EQ(p.bytes, 64 + t) << "thread " << t;
    ++next[t];
  }
  for (uint64_t n : next) EXPECT_EQ(n, kBatches);
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

// Recorded (the QP may READ) and direct (latency alone, one-way send ops:
// the provider's lock serializes the batches).
TEST_F(WrBatchTest, ThreadsSharingOneQpKeepTheirOwnWrIds) {
  for (const uint64_t ops : {kAllRcOps, kOneWayOps}) {
    SCOPED_TRACE(ops == kOneWayOps ? "direct" : "recorded");
    ResetForTesting();
    ConfigureLatencyAlone(2'000);
    FakeDevice d("fake0");
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = ops});
    ExpectOwnWrIds(d, e);
  }
}

// A QP created with IBV_QP_EX_WITH_FLUSH (rdma-core 45 and later) may take
// ibv_wr_flush, a slot the shim does not wrap: were its batches recorded,
// the flush would reach the provider outside the batch the rest of it is
// replayed in. Its batches go straight through instead (the provider's
// batch is open from wr_start), and the latency still applies.
TEST_F(WrBatchTest, QpWithFlushKeepsTheProvidersBatchOpenFromWrStart) {
  ConfigureLatency(2'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ibv_qp_init_attr_ex a{};
  a.send_cq = r.cq;
  a.recv_cq = r.cq;
  a.qp_type = IBV_QPT_RC;
  a.pd = r.pd;
  a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  constexpr uint64_t kWithFlush = uint64_t{1} << 11;  // IBV_QP_EX_WITH_FLUSH
  a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | kWithFlush;
  ibv_qp* qp = ibv_create_qp_ex(r.ctx, &a);
  ASSERT_NE(qp, nullptr);
  Connect(qp);
  auto* f = reinterpret_cast<FakeQp*>(qp);
  ibv_qp_ex* x = &f->qpx;
  // A direct batch's wait is counted from its wr_start.
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(x);
  EXPECT_TRUE(f->in_batch) << "the provider's batch is open for wr_flush";
  ibv_wr_rdma_write(x, 1, 0x2000);
  ibv_wr_set_sge(x, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  EXPECT_GE(DeviceDelay(d, t0) + ShimFixedCost(), Ticks(2'000));
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

// With latency alone a QP whose send ops hold no READ or atomic owes its
// batch one one-way latency, waited before the provider's wr_start: the
// batch is not recorded, the provider's batch is open from wr_start, and
// the post still reaches the device no earlier than the target (from the
// wr_start call). With the report on too (bytes counted on the way).
TEST_F(WrBatchTest, LatencyAloneOneWayBatchOpensTheProvidersBatchAtWrStart) {
  for (const bool report : {false, true}) {
    SCOPED_TRACE(report ? "with the report" : "latency alone");
    ConfigureLatencyWithReport(20'000, report);
    FakeDevice d("fake0");
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = kOneWayOps});
    const auto* f = reinterpret_cast<const FakeQp*>(e.qp);
    for (int i = 0; i < 3; ++i) {
      const uint64_t t0 = emulate::ReadTsc();
      ibv_wr_start(e.qpx);
      EXPECT_TRUE(f->in_batch) << "the provider's wr_start was not called";
      ibv_wr_rdma_write(e.qpx, 1, 0x2000);
      ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
      ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
      EXPECT_GE(DeviceDelay(d, t0) + E().cal.spin_fixed_cost_ticks,
                Ticks(20'000));
    }
    EXPECT_EQ(d.Posts().size(), 3u);
    EXPECT_EQ(d.calls_outside_batch.load(), 0u);
    if (report) {
      EXPECT_EQ(Counters(e.qp).bytes, 3 * 64u);
    }
  }
}

// A READ on such a QP (a provider may fill every slot whatever the send
// ops said) still owes its two one-way latencies.
TEST_F(WrBatchTest, ReadOnAOneWayQpStillWaitsTwoLegs) {
  ConfigureLatencyAlone(20'000);
  FakeDevice d("fake0");
  FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = kOneWayOps});
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(e.qpx);
  ibv_wr_rdma_read(e.qpx, 1, 0x2000);
  ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
  EXPECT_GE(DeviceDelay(d, t0) + E().cal.spin_fixed_cost_ticks,
            2 * Ticks(20'000));
}

// With latency alone a one-way QP's batch owes nothing at wr_complete: the
// shim wraps its wr_start only (and the round-trip opcodes a provider may
// fill all the same), so wr_complete, the builders and wr_abort are the
// provider's own, as on a QP made without the shim.
TEST_F(WrBatchTest, LatencyAloneOneWayQpWrapsOnlyItsWrStart) {
  ConfigureLatencyAlone(2'000);
  FakeDevice d("fake0");
  FakeQpEnv native = MakeFakeQp(
      d, {.through_shim = false, .wr_api = true, .send_ops = kOneWayOps});
  FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = kOneWayOps});
  EXPECT_EQ(e.qpx->wr_complete, native.qpx->wr_complete);
  EXPECT_EQ(e.qpx->wr_abort, native.qpx->wr_abort);
  EXPECT_EQ(e.qpx->wr_rdma_write, native.qpx->wr_rdma_write);
  EXPECT_EQ(e.qpx->wr_set_sge, native.qpx->wr_set_sge);
  EXPECT_NE(e.qpx->wr_start, native.qpx->wr_start);
  EXPECT_NE(e.qpx->wr_rdma_read, native.qpx->wr_rdma_read);
}

// Once a READ was used on such a QP, its batches are watched to the end: a
// later READ batch owes two one-way latencies, an aborted one reaches the
// provider's wr_abort, and a write batch goes out after one.
TEST_F(WrBatchTest, AOneWayQpThatReadOnceOwesTwoLegsForEveryRead) {
  ConfigureLatencyAlone(20'000);
  FakeDevice d("fake0");
  FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = kOneWayOps});
  const auto* f = reinterpret_cast<const FakeQp*>(e.qp);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const uint64_t t0 = emulate::ReadTsc();
    ibv_wr_start(e.qpx);
    ibv_wr_rdma_read(e.qpx, 1, 0x2000);
    ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
    ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
    EXPECT_GE(DeviceDelay(d, t0) + E().cal.spin_fixed_cost_ticks,
              2 * Ticks(20'000));
  }
  ibv_wr_start(e.qpx);
  ibv_wr_rdma_read(e.qpx, 1, 0x2000);
  ibv_wr_abort(e.qpx);
  EXPECT_FALSE(f->in_batch) << "the provider's batch was left open";
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(e.qpx);
  ibv_wr_rdma_write(e.qpx, 1, 0x2000);
  ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
  EXPECT_GE(DeviceDelay(d, t0) + E().cal.spin_fixed_cost_ticks, Ticks(20'000));
  EXPECT_EQ(d.Posts().size(), 4u);
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
}

// What a batch tells only at wr_complete keeps it recorded: its bytes
// (pace), the whole batch (defer), a READ (the QP may read: its second leg
// is waited before the provider's wr_start).
TEST_F(WrBatchTest, OneWayBatchIsRecordedWhenTheEmulationNeedsIt) {
  struct Case {
    const char* name;
    uint64_t ops;
    Settings s;
  };
  std::vector<Case> cases(3);
  cases[0] = {"pace", kOneWayOps, {}};
  cases[0].s.engine.bandwidth = *emulate::ParseBandwidth("10Gbit/s");
  cases[0].s.engine.bw_mode = emulate::BwMode::kPace;
  cases[1] = {"defer", kOneWayOps, {}};
  cases[1].s.engine.latency_mode = emulate::LatencyMode::kDefer;
  cases[2] = {"send ops with READ", kAllRcOps, {}};
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    ResetForTesting();
    c.s.engine.latency_ns = 2'000;
    Configure(c.s);
    FakeDevice d("fake0");
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = c.ops});
    ibv_wr_start(e.qpx);
    EXPECT_FALSE(reinterpret_cast<const FakeQp*>(e.qp)->in_batch);
    ibv_wr_rdma_write(e.qpx, 1, 0x2000);
    ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
    ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
    EXPECT_EQ(d.calls_outside_batch.load(), 0u);
    DestroyQp(e.qp);
  }
}

// A direct batch's shape (here its bytes, the report on) is the open
// batch's: another thread's wr_start on the same QP, which waits for the
// provider's lock, must not reset it first. On a QP with ibv_wr_flush (direct
// whatever the settings) and on a one-way QP.
TEST_F(WrBatchTest, AnotherThreadsWrStartLeavesTheOpenDirectBatchAlone) {
  constexpr uint64_t kWithFlush = uint64_t{1} << 11;  // IBV_QP_EX_WITH_FLUSH
  for (const uint64_t ops : {kOneWayOps | kWithFlush, kOneWayOps}) {
    SCOPED_TRACE(ops == kOneWayOps ? "one-way" : "with flush");
    ResetForTesting();
    ConfigureLatency(2'000);
    FakeDevice d("fake0");
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = true, .send_ops = ops});
    ibv_wr_start(e.qpx);
    ibv_wr_rdma_write(e.qpx, 1, 0x2000);
    ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
    std::thread other([&e] {
      ibv_wr_start(e.qpx);
      ibv_wr_rdma_write(e.qpx, 1, 0x2000);
      ibv_wr_set_sge(e.qpx, 1, 0x1000, 100);
      EXPECT_EQ(ibv_wr_complete(e.qpx), 0);
    });
    // Time for the other thread to reach the provider's lock (a reset before
    // it would have happened by then); the assert below holds however long.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(ibv_wr_complete(e.qpx), 0);
    other.join();
    EXPECT_EQ(Counters(e.qp).bytes, 164u);
    DestroyQp(e.qp);
  }
}

}  // namespace
}  // namespace verbsemu::shim::internal
