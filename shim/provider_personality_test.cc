// The shim over a fake provider that rewrites its own ibv_qp_ex slots after
// creation, as mlx5 does in rdma-core v44: delay, pacing and padding must
// hold on both post APIs after RTS and after a RESET -> RTS cycle, and the
// provider's current wr_complete (never a stale one) must run. The fake's
// other mlx5 behaviours (refusals, per-type setters, the lock-free mode)
// are checked here too; the defer mode over them is mlx5_personality_test.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "emulate/tsc.h"
#include "shim/internal/fake_qp_ex.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class Mlx5PersonalityTest : public ShimTest {
 protected:
  FakeQpEnv MakeMlx5Qp(FakeDevice& d, bool through_shim = true) {
    d.personality = Personality::kMlx5;
    FakeQpEnv e = MakeFakeQp(d, {.through_shim = through_shim, .wr_api = true});
    EXPECT_NE(e.qp, nullptr);
    return e;
  }

  // RESET, then INIT -> RTR -> RTS, as an application recovering a QP.
  static void Recycle(ibv_qp* qp) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RESET;
    ASSERT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
    Connect(qp);
  }

  static int WrPost(ibv_qp_ex* x, uint32_t bytes) {
    ibv_wr_start(x);
    ibv_wr_rdma_write(x, 1, 0x2000);
    ibv_wr_set_sge(x, 1, 0x1000, bytes);
    return ibv_wr_complete(x);
  }
};

TEST_F(Mlx5PersonalityTest, TheFakeRewritesWrCompleteAsMlx5Does) {
  FakeDevice d("mlx5_0");
  FakeQpEnv e = MakeMlx5Qp(d, /*through_shim=*/false);  // now at RTS
  EXPECT_EQ(WrPost(e.qpx, 64), 0);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(Real().modify_qp(e.qp, &a, IBV_QP_STATE), 0);
  EXPECT_EQ(WrPost(e.qpx, 64), EINVAL);  // the error variant
  EXPECT_EQ(d.complete_errors.load(), 1u);
  ASSERT_TRUE(ConnectFakeQp(e.qp, /*through_shim=*/false));
  EXPECT_EQ(WrPost(e.qpx, 64), 0);
}

TEST_F(Mlx5PersonalityTest, LatencyOnBothApisAfterRtsAndAfterReset) {
  ConfigureLatency(10'000);
  FakeDevice d("mlx5_0");
  FakeQpEnv r = MakeMlx5Qp(d);
  const uint64_t target = Cal().NsToTicks(10'000);
  const uint64_t slack = ShimFixedCost();
  Chain ch(1, 64);
  for (int cycle = 0; cycle < 2; ++cycle) {
    if (cycle == 1) Recycle(r.qp);
    uint64_t t0 = emulate::ReadTsc();
    ASSERT_EQ(WrPost(r.qpx, 64), 0) << "cycle " << cycle;
    EXPECT_GE(d.last_post_tsc.load() - t0 + slack, target) << cycle;
    t0 = emulate::ReadTsc();
    ASSERT_EQ(Post(r.qp, ch), 0);
    EXPECT_GE(d.last_post_tsc.load() - t0 + slack, target) << cycle;
  }
  EXPECT_EQ(d.complete_errors.load(), 0u);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.posts, 4u);
  EXPECT_EQ(c.wrs, 4u);
  EXPECT_GE(c.delay_ticks + 4 * slack, 4 * target);
}

TEST_F(Mlx5PersonalityTest, PaddingOnBothApisAfterRtsAndAfterReset) {
  ConfigureBandwidth("50%");
  FakeDevice d("mlx5_0");
  FakeQpEnv r = MakeMlx5Qp(d);
  Chain ch(1, 1 << 20);
  for (int cycle = 0; cycle < 2; ++cycle) {
    if (cycle == 1) Recycle(r.qp);
    uint64_t before = d.ud_datagrams.load();
    ASSERT_EQ(WrPost(r.qpx, 1 << 20), 0) << "cycle " << cycle;
    // 1 MiB of data at 50% owes 1 MiB of padding: 1024 datagrams of 1 KiB.
    EXPECT_EQ(d.ud_datagrams.load() - before, 1024u) << cycle;
    before = d.ud_datagrams.load();
    ASSERT_EQ(Post(r.qp, ch), 0);
    EXPECT_EQ(d.ud_datagrams.load() - before, 1024u) << cycle;
  }
  EXPECT_EQ(d.complete_errors.load(), 0u);
}

TEST_F(Mlx5PersonalityTest, PacingOnBothApisAfterRtsAndAfterReset) {
  // 10 Gbit/s on a link far faster: 64 KiB leaves every 52.4 us.
  ConfigureBandwidth("10Gbit/s", 0, emulate::BwMode::kPace, 1e12);
  FakeDevice d("mlx5_0");
  FakeQpEnv r = MakeMlx5Qp(d);
  const uint64_t gap = Cal().NsToTicks(65536 * 8 / 10.0);
  // The pacer's catch-up window: 20 us, and never under two messages.
  const uint64_t burst = std::max(Cal().NsToTicks(20'000), 2 * gap);
  Chain ch(1, 65536);
  for (int cycle = 0; cycle < 2; ++cycle) {
    if (cycle == 1) Recycle(r.qp);
    constexpr int kPosts = 10;
    uint64_t first = 0;
    for (int i = 0; i < kPosts; ++i) {
      ASSERT_EQ(i % 2 == 0 ? WrPost(r.qpx, 65536) : Post(r.qp, ch), 0);
      if (i == 0) first = d.last_post_tsc.load();
    }
    EXPECT_GE(d.last_post_tsc.load() - first + burst, (kPosts - 1) * gap)
        << "cycle " << cycle;
  }
  EXPECT_EQ(d.complete_errors.load(), 0u);
  EXPECT_EQ(Counters(r.qp).wrs, 20u);
}

// mlx5dv_devx_qp_modify changes the state without ibv_modify_qp: the
// rewrite is caught at the next wr_start, before the batch is built.
TEST_F(Mlx5PersonalityTest, RewriteOutsideModifyQpIsCaughtAtTheNextBatch) {
  ConfigureLatency(10'000);
  FakeDevice d("mlx5_0");
  FakeQpEnv r = MakeMlx5Qp(d);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(Real().modify_qp(r.qp, &a, IBV_QP_STATE), 0);
  ASSERT_TRUE(ConnectFakeQp(r.qp, /*through_shim=*/false));
  const uint64_t t0 = emulate::ReadTsc();
  ASSERT_EQ(WrPost(r.qpx, 64), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(10'000));
  EXPECT_EQ(Counters(r.qp).wrs, 1u);
  EXPECT_EQ(d.complete_errors.load(), 0u);
}

// A QP on the fake device alone (no shim) with caps, at RTS unless not.
ibv_qp* NativeQp(const FakeQpEnv& e, ibv_qp_type type, const ibv_qp_cap& cap,
                 bool connect = true) {
  ibv_qp_init_attr_ex a{};
  a.send_cq = e.cq;
  a.recv_cq = e.cq;
  a.qp_type = type;
  a.pd = e.pd;
  a.cap = cap;
  a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
  ibv_qp* qp = verbs_get_ctx(e.ctx)->create_qp_ex(e.ctx, &a);
  if (qp != nullptr && connect) {
    EXPECT_TRUE(ConnectFakeQp(qp, false));
  }
  return qp;
}

ibv_qp_cap Caps(uint32_t wrs, uint32_t sges, uint32_t inl) {
  ibv_qp_cap c{};
  c.max_send_wr = wrs;
  c.max_send_sge = sges;
  c.max_inline_data = inl;
  return c;
}

TEST_F(Mlx5PersonalityTest, TheFakeRefusesPostsAsMlx5Does) {
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv e = MakeFakeQp(d, {.through_shim = false, .connect = false});
  ibv_qp* qp = NativeQp(e, IBV_QPT_RC, Caps(2, 1, 16), /*connect=*/false);
  ASSERT_NE(qp, nullptr);
  Chain ch(1, 64);
  ch.wrs[0].send_flags = IBV_SEND_SIGNALED;
  char inline_data[64] = {};
  ch.sges[0].addr = reinterpret_cast<uintptr_t>(inline_data);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), ENOMEM)
      << "before RTS";
  EXPECT_EQ(bad, ch.head());
  ASSERT_TRUE(ConnectFakeQp(qp, false));
  ch.wrs[0].num_sge = 2;
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), ENOMEM);
  ch.wrs[0].num_sge = 1;
  ch.wrs[0].send_flags |= IBV_SEND_INLINE;
  ch.sges[0].length = 17;
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), ENOMEM);
  ch.sges[0].length = 16;
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), 0);
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), 0);
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), ENOMEM)
      << "two WRs outstanding fill the send queue";
  ibv_wc wc[4];
  EXPECT_EQ(e.cq->context->ops.poll_cq(e.cq, 1, wc), 1);
  EXPECT_EQ(qp->context->ops.post_send(qp, ch.head(), &bad), 0)
      << "a polled completion frees its WR";
  EXPECT_EQ(d.Posts().size(), 3u);
}

TEST_F(Mlx5PersonalityTest, TheFakesSetterErrorsComeFromWrComplete) {
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv e = MakeFakeQp(d, {.through_shim = false, .connect = false});
  ibv_qp* qp = NativeQp(e, IBV_QPT_RC, Caps(8, 1, 16));
  ibv_qp_ex* x = Real().qp_to_qp_ex(qp);
  char data[32] = {};
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, data, sizeof data);
  EXPECT_EQ(ibv_wr_complete(x), ENOMEM);
  const ibv_sge sges[2] = {{0x1000, 8, 1}, {0x2000, 8, 1}};
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_sge_list(x, 2, sges);
  EXPECT_EQ(ibv_wr_complete(x), ENOMEM);
  EXPECT_EQ(WrPost(x, 64), 0);
  EXPECT_EQ(d.Posts().size(), 1u) << "failed batches were rolled back";
}

// mlx5 installs its setters by QP type; a setter of the other family
// would build a malformed WQE.
TEST_F(Mlx5PersonalityTest, TheFakeHasSettersPerQpType) {
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv e = MakeFakeQp(d, {.through_shim = false, .connect = false});
  ibv_qp_ex* rc = Real().qp_to_qp_ex(NativeQp(e, IBV_QPT_RC, {}));
  ibv_qp_ex* ud = Real().qp_to_qp_ex(NativeQp(e, IBV_QPT_UD, {}));
  EXPECT_NE(rc->wr_set_sge, ud->wr_set_sge);
  EXPECT_NE(rc->wr_set_inline_data, ud->wr_set_inline_data);
  ibv_wr_start(ud);
  ibv_wr_send(ud);
  rc->wr_set_sge(ud, 1, 0x1000, 8);  // the RC family's setter on a UD QP
  ibv_wr_abort(ud);
  EXPECT_EQ(d.wrong_setter_calls.load(), 1u);
}

// With MLX5_SINGLE_THREADED=1 two threads in one context's post path at
// once are what the provider no longer guards against: the fake counts it.
TEST_F(Mlx5PersonalityTest, TheFakeCountsConcurrentEntriesWithoutLocks) {
  ASSERT_EQ(setenv("MLX5_SINGLE_THREADED", "1", 1), 0);
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv e = MakeFakeQp(d, {.through_shim = false, .connect = false});
  unsetenv("MLX5_SINGLE_THREADED");
  ibv_qp* qps[2] = {NativeQp(e, IBV_QPT_RC, {}), NativeQp(e, IBV_QPT_RC, {})};
  d.post_dwell_ns = 2'000'000;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto poster = [&](ibv_qp* qp) {
    Chain ch(1, 64);
    ibv_send_wr* bad = nullptr;
    while (d.concurrent_entries.load() == 0 &&
           std::chrono::steady_clock::now() < end) {
      qp->context->ops.post_send(qp, ch.head(), &bad);
    }
  };
  std::thread a(poster, qps[0]);
  poster(qps[1]);
  a.join();
  EXPECT_GT(d.concurrent_entries.load(), 0u);
}

// A QP whose shim state is gone (being destroyed) still reaches its own
// provider functions: never those of another QP of its context.
TEST_F(Mlx5PersonalityTest, EachQpKeepsItsOwnProviderSlots) {
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  FakeQpEnv rc = MakeMlx5Qp(d);  // the context's first QP: RC
  ibv_qp_init_attr_ex a{};
  a.send_cq = rc.cq;
  a.recv_cq = rc.cq;
  a.qp_type = IBV_QPT_UD;
  a.pd = rc.pd;
  a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  a.send_ops_flags = IBV_QP_EX_WITH_SEND;
  ibv_qp* ud = ibv_create_qp_ex(rc.ctx, &a);
  ASSERT_NE(ud, nullptr);
  Connect(ud);
  ibv_qp_ex* x = Real().qp_to_qp_ex(ud);
  EXPECT_EQ(WrPost(rc.qpx, 64), 0);
  int complete_rc = -1;
  d.on_destroy_qp = [&](ibv_qp*) {
    ibv_wr_start(x);
    ibv_wr_send(x);
    ibv_wr_set_ud_addr(x, nullptr, 7, 0);
    ibv_wr_set_sge(x, 1, 0x1000, 64);
    complete_rc = ibv_wr_complete(x);
  };
  ASSERT_EQ(DestroyQp(ud), 0);
  EXPECT_EQ(complete_rc, 0);
  EXPECT_EQ(d.wrong_setter_calls.load(), 0u);
  EXPECT_EQ(d.complete_errors.load(), 0u);
  EXPECT_EQ(d.Posts().size(), 2u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
