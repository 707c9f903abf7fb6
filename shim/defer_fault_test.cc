// The defer mode never drops a WR the application posted: what it holds
// when its QP moves to ERR completes with IBV_WC_WR_FLUSH_ERR, what the
// provider refuses after the post returned completes with a local error,
// what a full send queue or a busy batch lock keeps waits and goes later;
// and what the shim copies is bounded before any copy.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

// Declared after a test's FakeDevice, so it goes first: the progress thread
// stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// A QP with its own send CQ and a second CQ on its context: polling the
// second hands the QP's posts over without taking its completions, so the
// provider's send queue stays as full as the test made it.
struct TwoCqQp {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  ibv_cq* other = nullptr;
  ibv_qp* qp = nullptr;
};

// A send queue of `depth` WRs of one SGE each, no inline data.
ibv_qp_cap Caps(uint32_t depth) {
  ibv_qp_cap cap{};
  cap.max_send_wr = depth;
  cap.max_recv_wr = 4;
  cap.max_send_sge = 1;
  cap.max_recv_sge = 1;
  return cap;
}

TwoCqQp MakeTwoCqQp(FakeDevice& d, const ibv_qp_cap& cap) {
  TwoCqQp t;
  t.ctx = OpenDevice(d.device());
  t.pd = Real().alloc_pd(t.ctx);
  t.cq = CreateCq(t.ctx, 64, nullptr, nullptr, 0);
  t.other = CreateCq(t.ctx, 64, nullptr, nullptr, 0);
  ibv_qp_init_attr init{};
  init.send_cq = t.cq;
  init.recv_cq = t.cq;
  init.qp_type = IBV_QPT_RC;
  init.cap = cap;
  t.qp = CreateQp(t.pd, &init);
  EXPECT_TRUE(t.qp != nullptr && ConnectFakeQp(t.qp));
  return t;
}

// Whether `cq` has nothing more after a few polls (each hands over what
// is due).
bool PollsNothing(ibv_cq* cq) {
  ibv_wc wc[4];
  for (int i = 0; i < 100; ++i) {
    if (ibv_poll_cq(cq, 4, wc) != 0) return false;
  }
  return true;
}

// Polls `cq` until `n` completions came or 5 s passed.
std::vector<ibv_wc> PollN(ibv_cq* cq, size_t n) {
  std::vector<ibv_wc> got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  ibv_wc wc[16];
  while (got.size() < n && std::chrono::steady_clock::now() < end) {
    const int k = ibv_poll_cq(cq, 16, wc);
    for (int i = 0; i < k; ++i) got.push_back(wc[i]);
  }
  return got;
}

int ModifyTo(ibv_qp* qp, ibv_qp_state state) {
  ibv_qp_attr a{};
  a.qp_state = state;
  return ModifyQp(qp, &a, IBV_QP_STATE);
}

class DeferFaultTest : public ShimTest {
 protected:
  // mlx5's send queue of 4, full at the provider, and 4 more WRs held by
  // the shim (wr_ids 0..7).
  TwoCqQp FullQueueAndFourHeld(FakeDevice& d) {
    d.personality = Personality::kMlx5;
    ConfigureDefer(1000);
    TwoCqQp t = MakeTwoCqQp(d, Caps(4));
    PostSignaled(t.qp, 0, 4);
    EXPECT_TRUE(PollUntilPosts(d, t.other, 4, std::chrono::seconds(5)));
    PostSignaled(t.qp, 4, 4);
    return t;
  }
};

TEST_F(DeferFaultTest, ModifyToErrFlushesWhatTheFullSendQueueKept) {
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  TwoCqQp t = FullQueueAndFourHeld(d);
  ASSERT_EQ(ModifyTo(t.qp, IBV_QPS_ERR), 0);
  const std::vector<ibv_wc> wc = PollN(t.cq, 8);
  ASSERT_EQ(wc.size(), 8u) << "held WRs got no completion";
  for (uint64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(wc[i].wr_id, i);
    EXPECT_EQ(wc[i].qp_num, t.qp->qp_num);
    EXPECT_EQ(wc[i].status, i < 4 ? IBV_WC_SUCCESS : IBV_WC_WR_FLUSH_ERR);
  }
  EXPECT_TRUE(PollsNothing(t.cq)) << "a WR completed twice";
}

TEST_F(DeferFaultTest, PostsOnAQpInErrCompleteWithFlushErrors) {
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  TwoCqQp t = FullQueueAndFourHeld(d);
  ASSERT_EQ(ModifyTo(t.qp, IBV_QPS_ERR), 0);
  PostSignaled(t.qp, 8, 2);
  const std::vector<ibv_wc> wc = PollN(t.cq, 10);
  ASSERT_EQ(wc.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(wc[i].wr_id, i);
  EXPECT_EQ(wc[9].status, IBV_WC_WR_FLUSH_ERR);
}

TEST_F(DeferFaultTest, RtsToRtsModifyKeepsWhatDidNotFitAndHandsItOverLater) {
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  TwoCqQp t = FullQueueAndFourHeld(d);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  ASSERT_EQ(ModifyQp(t.qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT), 0);
  const std::vector<ibv_wc> wc = PollN(t.cq, 8);
  ASSERT_EQ(wc.size(), 8u) << "held WRs were dropped at the modify";
  for (uint64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(wc[i].wr_id, i);
    EXPECT_EQ(wc[i].status, IBV_WC_SUCCESS);
  }
}

TEST_F(DeferFaultTest, ARefusalAfterThePostCompletesInErrorInOrder) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(1000);
  TwoCqQp t = MakeTwoCqQp(d, Caps(64));
  // The provider refuses the middle WR of the chain for good (ENOMEM with
  // its queue nearly empty, as mlx5 refuses an oversize WR).
  d.fail_post_at = 1;
  Chain ch(3, 64);  // wr_ids 100..102
  for (auto& w : ch.wrs) w.send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(t.qp, ch), 0);
  const std::vector<ibv_wc> wc = PollN(t.cq, 3);
  d.fail_post_at = -1;
  ASSERT_EQ(wc.size(), 3u) << "a refused WR got no completion";
  EXPECT_EQ(wc[0].wr_id, 100u);
  EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(wc[1].wr_id, 101u);
  EXPECT_EQ(wc[1].status, IBV_WC_LOC_QP_OP_ERR);
  EXPECT_EQ(wc[1].vendor_err, static_cast<uint32_t>(ENOMEM));
  EXPECT_EQ(wc[2].wr_id, 102u);
  EXPECT_EQ(wc[2].status, IBV_WC_SUCCESS);
}

TEST_F(DeferFaultTest, ABatchRefusedAfterItsPostCompletesInError) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(1000);
  Res r = MakeQp(d, /*wr_api=*/true);
  d.fail_complete = true;  // wr_complete: EINVAL, the batch rolled back
  ibv_wr_start(r.qpx);
  for (uint64_t id : {7u, 8u}) {
    r.qpx->wr_id = id;
    r.qpx->wr_flags = 0;  // unsignaled: an error completes all the same
    ibv_wr_rdma_write(r.qpx, 1, 0x2000);
    ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  }
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  const std::vector<ibv_wc> wc = PollN(r.cq, 2);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].wr_id, 7u);
  EXPECT_EQ(wc[1].wr_id, 8u);
  EXPECT_EQ(wc[1].status, IBV_WC_LOC_QP_OP_ERR);
  EXPECT_EQ(wc[1].vendor_err, static_cast<uint32_t>(EINVAL));
}

TEST_F(DeferFaultTest, ABusyBatchLockIsRetriedNeverDropped) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(100e6);  // batch 1 is still held at the modify
  Res r = MakeQp(d, /*wr_api=*/true);
  auto batch = [&](uint64_t id) {
    ibv_wr_start(r.qpx);
    r.qpx->wr_id = id;
    r.qpx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(r.qpx, 1, 0x2000);
    ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  };
  batch(1);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  // This thread holds the QP's batch lock while it modifies the QP: the
  // held batch cannot be replayed now, and must not be lost.
  batch(2);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  ASSERT_EQ(ModifyQp(r.qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT), 0);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  const std::vector<ibv_wc> wc = PollN(r.cq, 2);
  ASSERT_EQ(wc.size(), 2u) << "the held batch was dropped";
  EXPECT_EQ(wc[0].wr_id, 1u);
  EXPECT_EQ(wc[1].wr_id, 2u);
}

TEST_F(DeferFaultTest, AnUnknownSendQueueDepthBoundsTheFifo) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(60e9);      // nothing falls due during the test
  Res r = MakeQp(d, false);  // its caps are 0: not known
  Chain ch(1, 64);
  int rc = 0;
  int posted = 0;
  for (; posted < 20000 && (rc = Post(r.qp, ch)) == 0; ++posted) {
  }
  EXPECT_EQ(rc, ENOMEM);
  EXPECT_EQ(posted, 16384);
}

TEST_F(DeferFaultTest, BogusLengthsOnAQpOfUnknownCapsAreRefusedBeforeAnyCopy) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(1000);
  Res r = MakeQp(d, false);
  char small[8] = {};
  Chain ch(1, 1u << 30, IBV_WR_SEND);  // an inline length beyond `small`
  ch.sges[0].addr = reinterpret_cast<uintptr_t>(small);
  ch.wrs[0].send_flags = IBV_SEND_INLINE;
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(r.qp, ch.head(), &bad), EINVAL);
  EXPECT_EQ(bad, ch.head());
}

}  // namespace
}  // namespace verbsemu::shim::internal
