// Contexts and QPs the application reaches only through libibverbs' own
// handle, as NCCL does, on a libibverbs that binds its calls inside itself
// (Ubuntu's -Bsymbolic-functions build): the shim sees them only through the
// providers' calls into libibverbs' private ABI, verbs_set_ops and
// ibv_cmd_destroy_qp. The fake device makes those calls as a provider does.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>

#include "shim/internal/fake_qp.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class PrivatePathTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    FakeDevice::SetSetOpsHook(VerbsSetOps);
  }
  // A connected RC QP made entirely behind the shim: the device opened,
  // the QP created and connected through the fake's own entry points.
  static Res Hidden(FakeDevice& d) {
    Res r = MakeFakeQp(d, {.through_shim = false});
    EXPECT_NE(r.qp, nullptr);
    return r;
  }
  // Polls `cq` until `n` completions came or 2 s passed; how many came.
  static int PollFor(ibv_cq* cq, int n) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(2);
    int got = 0;
    while (got < n && std::chrono::steady_clock::now() < until) {
      ibv_wc wc[8];
      const int k = ibv_poll_cq(cq, 8, wc);
      if (k > 0) got += k;
    }
    return got;
  }
};

TEST_F(PrivatePathTest, ContextOpenedBehindTheShimIsPatchedByVerbsSetOps) {
  ConfigureLatency(20'000);
  FakeDevice d("fake0");
  Res r = Hidden(d);
  ASSERT_TRUE(IsContextPatched(r.ctx));
  Chain ch(1, 64);
  const uint64_t t0 = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  // The provider's post, not libibverbs' placeholder, and only once.
  EXPECT_EQ(d.post_calls.load(), 1u);
  EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - t0), 20'000.0);
  // Adopted at its first post: the report names it.
  EXPECT_EQ(Counters(r.qp).wrs, 1u);
}

TEST_F(PrivatePathTest, BothHooksOnOneContextWrapItOnce) {
  ConfigureLatency(5'000);
  FakeDevice d("fake0");
  // The public path (as on Debian, where libibverbs' call to its own
  // verbs_set_ops also reaches the shim): registered twice, wrapped once.
  Res r = MakeQp(d, false);
  Chain ch(3, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.post_calls.load(), 1u);
  EXPECT_EQ(Counters(r.qp).wrs, 3u);
}

TEST_F(PrivatePathTest, QpDestroyedBehindTheShimIsRetired) {
  ConfigureLatency(1'000);
  FakeDevice d("fake0");
  Res r = Hidden(d);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_EQ(LiveQpCount(), 1u);
  ASSERT_EQ(Real().destroy_qp(r.qp), 0);
  EXPECT_EQ(LiveQpCount(), 0u);
  QpCounters c;
  EXPECT_FALSE(GetQpCounters(r.qp, &c));
}

TEST_F(PrivatePathTest, RefusedDestroyBehindTheShimKeepsTheQp) {
  ConfigureLatency(1'000);
  FakeDevice d("fake0");
  Res r = Hidden(d);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  d.fail_destroy_qp = true;
  EXPECT_EQ(Real().destroy_qp(r.qp), EBUSY);
  EXPECT_EQ(LiveQpCount(), 1u);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(Counters(r.qp).wrs, 2u);
}

// A provider that destroys without the shim seeing it, and a new QP at the
// same address: the new one starts with state of its own.
TEST_F(PrivatePathTest, NewQpAtARecycledAddressStartsClean) {
  FakeDevice::SetCmdDestroyQpHook(nullptr);
  ConfigureLatency(1'000);
  FakeDevice d("fake0");
  Res r = Hidden(d);
  Chain ch(2, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_EQ(Counters(r.qp).wrs, 2u);
  FakeDevice::RecycleQp(r.qp);
  ASSERT_TRUE(ConnectFakeQp(r.qp, /*through_shim=*/false));
  Chain one(1, 64);
  ASSERT_EQ(Post(r.qp, one), 0);
  EXPECT_EQ(Counters(r.qp).wrs, 1u);
  EXPECT_EQ(LiveQpCount(), 1u);
}

// In defer mode what the old QP still held must never reach the new one.
TEST_F(PrivatePathTest, HeldPostsOfARecycledQpAreDroppedNotMisdelivered) {
  FakeDevice::SetCmdDestroyQpHook(nullptr);
  ConfigureDefer(50e6);  // 50 ms: still held when the address is reused
  FakeDevice d("fake0");
  Res r = Hidden(d);
  Chain old_posts(2, 64);
  ASSERT_EQ(Post(r.qp, old_posts), 0);
  ASSERT_EQ(d.post_calls.load(), 0u);
  FakeDevice::RecycleQp(r.qp);
  ASSERT_TRUE(ConnectFakeQp(r.qp, /*through_shim=*/false));
  Chain fresh(1, 64);
  fresh.wrs[0].wr_id = 7;
  fresh.wrs[0].send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(r.qp, fresh), 0);
  ASSERT_EQ(PollFor(r.cq, 1), 1);
  for (const PostRecord& p : d.Posts()) EXPECT_EQ(p.wr_id, 7u);
}

// With the hook, a QP destroyed through the private handle while it still
// held deferred posts hands them to the provider first, as ibv_destroy_qp
// through the shim does.
TEST_F(PrivatePathTest, DeferredPostsReachTheProviderBeforeAHiddenDestroy) {
  ConfigureDefer(50e6);
  FakeDevice d("fake0");
  Res r = Hidden(d);
  Chain ch(2, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_EQ(d.post_calls.load(), 0u);
  ASSERT_EQ(Real().destroy_qp(r.qp), 0);
  EXPECT_EQ(d.Posts().size(), 2u);
  EXPECT_EQ(LiveQpCount(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
