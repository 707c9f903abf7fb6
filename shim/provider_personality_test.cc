// The shim over a fake provider that rewrites its own ibv_qp_ex slots after
// creation, as mlx5 does in rdma-core v44: delay, pacing and padding must
// hold on both post APIs after RTS and after a RESET -> RTS cycle, and the
// provider's current wr_complete (never a stale one) must run.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>

#include "emulate/tsc.h"
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
  const uint64_t slack = Cal().spin_fixed_cost_ticks;
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
  EXPECT_GE(d.last_post_tsc.load() - t0 + Cal().spin_fixed_cost_ticks,
            Cal().NsToTicks(10'000));
  EXPECT_EQ(Counters(r.qp).wrs, 1u);
  EXPECT_EQ(d.complete_errors.load(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
