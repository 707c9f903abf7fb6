// The defer mode wakes up for an application about to sleep: arming a CQ
// (ibv_req_notify_cq) and waiting on a completion channel
// (ibv_get_cq_event) hand over what is due first and tell the progress
// thread nobody polls, so a sleeper on the fake device's channel gets its
// completion.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <thread>

#include "shim/internal/defer_progress.h"
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

// A QP whose send CQ reports to a completion channel.
struct ChannelQp {
  ibv_comp_channel channel{};
  ibv_cq* cq = nullptr;
  ibv_qp* qp = nullptr;
};

void MakeChannelQp(FakeDevice& d, ChannelQp* c) {
  ibv_context* ctx = OpenDevice(d.device());
  c->channel.context = ctx;
  c->channel.fd = -1;
  ibv_pd* pd = Real().alloc_pd(ctx);
  c->cq = CreateCq(ctx, 16, c, &c->channel, 0);
  ibv_qp_init_attr init{};
  init.send_cq = c->cq;
  init.recv_cq = c->cq;
  init.qp_type = IBV_QPT_RC;
  c->qp = CreateQp(pd, &init);
  ASSERT_NE(c->qp, nullptr);
  ASSERT_TRUE(ConnectFakeQp(c->qp));
}

void PostSignaled(ibv_qp* qp) {
  Chain ch(1, 64);
  ch.wrs[0].send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(qp, ch), 0);
}

class DeferWakeTest : public ShimTest {};

TEST_F(DeferWakeTest, ArmingACqHandsOverWhatIsDue) {
  ConfigureDefer(1000);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Progress().Stop();  // only the application's calls hand over now
  PostSignaled(r.qp);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // due by now
  ASSERT_EQ(d.post_calls.load(), 0u);
  ASSERT_EQ(ibv_req_notify_cq(r.cq, 0), 0);
  EXPECT_EQ(d.post_calls.load(), 1u) << "armed with a due post still held";
  EXPECT_EQ(d.notify_calls.load(), 1u);
}

TEST_F(DeferWakeTest, WaitingOnTheChannelHandsOverWhatIsDue) {
  ConfigureDefer(5e6);  // 5 ms: not due when the CQ is armed
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ChannelQp c;
  ASSERT_NO_FATAL_FAILURE(MakeChannelQp(d, &c));
  Progress().Stop();
  PostSignaled(c.qp);
  ASSERT_EQ(ibv_req_notify_cq(c.cq, 0), 0);
  ASSERT_EQ(d.post_calls.load(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));  // due now
  ibv_cq* cq = nullptr;
  void* cq_context = nullptr;
  // The fake's wait gives up after 5 s with -1.
  ASSERT_EQ(GetCqEvent(&c.channel, &cq, &cq_context), 0)
      << "slept with a due post held";
  EXPECT_EQ(cq, c.cq);
  EXPECT_EQ(cq_context, &c);
  ibv_wc wc;
  EXPECT_EQ(ibv_poll_cq(c.cq, 1, &wc), 1);
}

TEST_F(DeferWakeTest, ASleeperGetsItsCompletionFromTheProgressThread) {
  ConfigureDefer(2e6);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ChannelQp c;
  ASSERT_NO_FATAL_FAILURE(MakeChannelQp(d, &c));
  PostSignaled(c.qp);
  ASSERT_EQ(ibv_req_notify_cq(c.cq, 0), 0);
  ibv_cq* cq = nullptr;
  void* cq_context = nullptr;
  ASSERT_EQ(GetCqEvent(&c.channel, &cq, &cq_context), 0);
  EXPECT_EQ(cq, c.cq);
  EXPECT_EQ(d.post_calls.load(), 1u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
