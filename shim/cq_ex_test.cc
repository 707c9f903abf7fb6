// An application polling an extended CQ (ibv_create_cq_ex, then
// ibv_start_poll / ibv_next_poll / ibv_end_poll and ibv_wc_read_*, as UCX
// and libfabric do) sees the defer mode's own completions: flush errors of
// WRs held when their QP moved to ERR and local errors of WRs the provider
// refused after the post returned, each once, in the order of the QP's
// posts, with the fields it reads; and the provider's end_poll runs exactly
// when its start_poll returned a completion.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "shim/internal/engine.h"
#include "shim/internal/fake_cq.h"
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

// What an application reads of one completion of an extended CQ.
struct ExWc {
  uint64_t wr_id;
  ibv_wc_status status;
  ibv_wc_opcode opcode;
  uint32_t qp_num;
  uint32_t vendor_err;
  uint32_t byte_len;
  unsigned int wc_flags;
};

// A QP whose send CQ is extended, and a plain CQ on its context: polling
// the plain one hands the QP's posts over without taking its completions.
struct ExCqQp {
  ibv_context* ctx = nullptr;
  ibv_cq_ex* cq = nullptr;
  ibv_cq* other = nullptr;
  ibv_qp* qp = nullptr;
};

ExCqQp MakeExCqQp(FakeDevice& d, uint32_t depth) {
  d.extended_cqs = true;
  ExCqQp t;
  t.ctx = OpenDevice(d.device());
  ibv_cq_init_attr_ex attr{};
  attr.cqe = 64;
  attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
  t.cq = ibv_create_cq_ex(t.ctx, &attr);
  EXPECT_NE(t.cq, nullptr);
  t.other = CreateCq(t.ctx, 64, nullptr, nullptr, 0);
  ibv_qp_init_attr init{};
  init.send_cq = ibv_cq_ex_to_cq(t.cq);
  init.recv_cq = ibv_cq_ex_to_cq(t.cq);
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = depth;
  init.cap.max_recv_wr = 4;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  t.qp = CreateQp(Real().alloc_pd(t.ctx), &init);
  EXPECT_TRUE(t.qp != nullptr && ConnectFakeQp(t.qp));
  return t;
}

ExWc Read(ibv_cq_ex* cq) {
  return {cq->wr_id,
          cq->status,
          ibv_wc_read_opcode(cq),
          ibv_wc_read_qp_num(cq),
          ibv_wc_read_vendor_err(cq),
          ibv_wc_read_byte_len(cq),
          ibv_wc_read_wc_flags(cq)};
}

// Polls `cq` the way UCX does (start, next until ENOENT, end) until `n`
// completions came or 5 s passed, then 100 times more (a completion
// returned twice shows).
std::vector<ExWc> PollEx(ibv_cq_ex* cq, size_t n) {
  std::vector<ExWc> got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int extra = 0;
  while (extra < 100 && std::chrono::steady_clock::now() < end) {
    if (got.size() >= n) ++extra;
    ibv_poll_cq_attr attr{};
    if (ibv_start_poll(cq, &attr) != 0) continue;
    do {
      got.push_back(Read(cq));
    } while (ibv_next_poll(cq) == 0);
    ibv_end_poll(cq);
  }
  return got;
}

FakeCq* Fake(ibv_cq_ex* cq) { return reinterpret_cast<FakeCq*>(cq); }

class CqExTest : public ShimTest {};

TEST_F(CqExTest, FlushErrorsOfHeldWrsReachAnExtendedCqInOrder) {
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  d.personality = Personality::kMlx5;
  ConfigureDefer(1000);
  // mlx5's send queue of 4, full at the provider; 4 more held by the shim.
  ExCqQp t = MakeExCqQp(d, 4);
  PostSignaled(t.qp, 0, 4);
  ASSERT_TRUE(PollUntilPosts(d, t.other, 4, std::chrono::seconds(5)));
  PostSignaled(t.qp, 4, 4);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_ERR;
  ASSERT_EQ(ModifyQp(t.qp, &a, IBV_QP_STATE), 0);
  const std::vector<ExWc> wc = PollEx(t.cq, 8);
  ASSERT_EQ(wc.size(), 8u) << "held WRs got no completion, or one twice";
  for (uint64_t i = 0; i < wc.size(); ++i) {
    const bool held = i >= 4;  // by the shim at the modify: its flush
    EXPECT_EQ(wc[i].wr_id, i) << "out of order";
    EXPECT_EQ(wc[i].status, held ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS);
    if (held) {
      EXPECT_EQ(wc[i].opcode, IBV_WC_SEND);
      EXPECT_EQ(wc[i].qp_num, t.qp->qp_num);
    }
  }
  EXPECT_EQ(Fake(t.cq)->ex_polls.load(), 0) << "end_poll owed or extra";
  EXPECT_EQ(DestroyCq(ibv_cq_ex_to_cq(t.cq)), 0);
}

TEST_F(CqExTest, ARefusalAfterThePostReachesAnExtendedCqWithItsFields) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(1000);
  ExCqQp t = MakeExCqQp(d, 64);
  Chain ch(3, 64);  // wr_ids 100..102
  for (auto& w : ch.wrs) w.send_flags = IBV_SEND_SIGNALED;
  d.fail_post_at = 1;  // the middle WR refused at its hand-over, for good
  ASSERT_EQ(Post(t.qp, ch), 0);
  const std::vector<ExWc> wc = PollEx(t.cq, 3);
  d.fail_post_at = -1;
  ASSERT_EQ(wc.size(), 3u) << "a refused WR got no completion, or one twice";
  const ibv_wc_status want[] = {IBV_WC_SUCCESS, IBV_WC_LOC_QP_OP_ERR,
                                IBV_WC_SUCCESS};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(wc[i].wr_id, 100 + i);
    EXPECT_EQ(wc[i].status, want[i]);
  }
  // What the application reads of the shim's completion.
  const ExWc& refused = wc[1];
  EXPECT_EQ(refused.vendor_err, static_cast<uint32_t>(ENOMEM));
  EXPECT_EQ(refused.qp_num, t.qp->qp_num);
  EXPECT_EQ(refused.opcode, IBV_WC_SEND);
  EXPECT_EQ(refused.byte_len, 0u);
  EXPECT_EQ(refused.wc_flags, 0u);
  EXPECT_EQ(Fake(t.cq)->ex_polls.load(), 0);
}

// The provider's poll functions, as the fake makes them, against those of
// a CQ made through the shim.
bool ShimWraps(FakeDevice& d) {
  d.extended_cqs = true;
  ibv_context* ctx = OpenDevice(d.device());
  ibv_cq_init_attr_ex attr{};
  attr.cqe = 8;
  ibv_cq_ex* through_shim = ibv_create_cq_ex(ctx, &attr);
  ibv_cq_ex* direct = FakeCreateCqEx(ctx, &attr);
  EXPECT_NE(through_shim, nullptr);
  EXPECT_NE(direct, nullptr);
  if (through_shim == nullptr || direct == nullptr) return false;
  const bool wraps = through_shim->start_poll != direct->start_poll &&
                     through_shim->read_opcode != direct->read_opcode;
  EXPECT_EQ(DestroyCq(ibv_cq_ex_to_cq(through_shim)), 0);
  return wraps;
}

TEST_F(CqExTest, ExtendedCqsAreWrappedInDeferModeOnly) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureLatency(1000);
  EXPECT_FALSE(ShimWraps(d));
  ResetForTesting();
  FakeDevice e("fake1");
  ConfigureDefer(1000);
  EXPECT_TRUE(ShimWraps(e));
}

TEST_F(CqExTest, ACqTheProviderKeepsPollsThroughTheProviderAgain) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ConfigureDefer(1000);
  ExCqQp t = MakeExCqQp(d, 64);
  d.fail_destroy_cq = true;
  ASSERT_EQ(DestroyCq(ibv_cq_ex_to_cq(t.cq)), EBUSY);
  d.fail_destroy_cq = false;
  PostSignaled(t.qp, 7, 1);
  const std::vector<ExWc> wc = PollEx(t.cq, 1);
  ASSERT_EQ(wc.size(), 1u) << "the CQ the provider kept polls nothing";
  EXPECT_EQ(wc[0].wr_id, 7u);
  EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);
}

}  // namespace
}  // namespace verbsemu::shim::internal
