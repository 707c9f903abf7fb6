// The defer latency mode on the fake device: posts return at once and reach
// the provider the latency later, in order, with their data as it was at
// the post; the send queue's bound; hand-overs by polls, by the progress
// thread and before modify/destroy; the spin fallback of lock-free QPs.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/fake_qp_ex.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

class DeferTest : public ShimTest {
 protected:
  static uint64_t Ticks(double ns) { return Cal().NsToTicks(ns); }
};

// Declared after a test's FakeDevice, so it goes first: the progress thread
// stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

TEST_F(DeferTest, PostReturnsAtOnceAndReachesTheDeviceTheLatencyLater) {
  // 20 ms: a preemption of the posting thread under a loaded host (or a
  // sanitizer) stays far below it, so the post's return is told from a
  // post that waited the latency.
  ConfigureDefer(20e6);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  const uint64_t t0 = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  const uint64_t t1 = emulate::ReadTsc();
  EXPECT_LT(t1 - t0, Ticks(10e6)) << "the post waited";
  EXPECT_EQ(d.post_calls.load(), 0u);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(5)));
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_GE(posts[0].tsc - t0 + ShimFixedCost(), Ticks(20e6));
  EXPECT_EQ(posts[0].wr_id, 100u);
}

// Defer and pace: a post returns at once and waits in the send queue, as on
// a NIC, so a train posted after an idle stretch leaves at the link's rate
// from its first message. (A blocking sender's catch-up window would hand it
// two messages free: LogGP's G measured 64-77 ns/B for 80.)
TEST_F(DeferTest, ATrainAfterAnIdleLinkLeavesAtTheLinksRate) {
  ConfigureBandwidth("1Gbit/s", 0, emulate::BwMode::kPace, 1e12,
                     emulate::LatencyMode::kDefer);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 65536);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // link idle
  constexpr int kTrain = 8;
  const uint64_t start = emulate::ReadTsc();
  for (int i = 0; i < kTrain; ++i) ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1 + kTrain, std::chrono::seconds(5)));
  // The last leaves when its bytes end on the virtual link, less the real
  // link's own time for them: 8 messages of 524 us after the first post.
  const double min_ns = kTrain * 65536 * 8 / 1.0 * (1 - 1e9 / 1e12);
  EXPECT_GE(Cal().TicksToNs(d.Posts().back().tsc - start), min_ns * 0.999);
}

TEST_F(DeferTest, KeepsTheOrderOfChainsAndBatches) {
  ConfigureDefer(20e6);  // far above any preemption between the posts
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, true);
  Chain first(2, 64);  // wr_ids 100, 101
  ASSERT_EQ(Post(r.qp, first), 0);
  ibv_wr_start(r.qpx);
  r.qpx->wr_id = 102;
  ibv_wr_rdma_write(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  Chain last(1, 64);
  last.wrs[0].wr_id = 103;
  const uint64_t t_last = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, last), 0);
  EXPECT_EQ(d.post_calls.load(), 0u);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 4, std::chrono::seconds(5)));
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 4u);
  for (size_t i = 0; i < posts.size(); ++i) {
    EXPECT_EQ(posts[i].wr_id, 100 + i);
    if (i > 0) {
      EXPECT_GE(posts[i].tsc, posts[i - 1].tsc);
    }
  }
  EXPECT_TRUE(posts[2].via_wr_api);
  EXPECT_GE(posts[3].tsc - t_last + ShimFixedCost(), Ticks(20e6));
}

TEST_F(DeferTest, InlineDataIsCopiedAtThePost) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  char data[32] = "what the application sent";
  const uint64_t want = Fnv1a(0xcbf29ce484222325, data, sizeof data);
  ibv_sge sge{reinterpret_cast<uintptr_t>(data), sizeof data, 0};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_INLINE;
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(ibv_post_send(r.qp, &wr, &bad), 0);
  // The application may reuse all of it once the post returns.
  std::memset(data, 'x', sizeof data);
  std::memset(&sge, 0, sizeof sge);
  std::memset(&wr, 0, sizeof wr);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(5)));
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].digest, want);
  EXPECT_EQ(posts[0].bytes, sizeof data);
}

TEST_F(DeferTest, RefusesWithEnomemBeyondTheSendQueue) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  ibv_qp_init_attr init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = 4;
  init.cap.max_send_sge = 1;
  ibv_qp* qp = CreateQp(r.pd, &init);
  ASSERT_NE(qp, nullptr);
  Chain ch(6, 64);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), ENOMEM);
  EXPECT_EQ(bad, &ch.wrs[4]) << "the first four were taken";
  ch.wrs[0].num_sge = 2;  // more SGEs than the QP has
  ch.wrs[0].next = nullptr;
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(5)));
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), EINVAL);
  EXPECT_EQ(bad, &ch.wrs[0]);
  EXPECT_EQ(d.Posts().size(), 4u);
  EXPECT_EQ(DestroyQp(qp), 0);
}

TEST_F(DeferTest, ModifyAndDestroyHandOverFirst) {
  ConfigureDefer(1e9);  // never due within the test
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.post_calls.load(), 0u);
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_ERR;
  ASSERT_EQ(ModifyQp(r.qp, &attr, IBV_QP_STATE), 0);
  EXPECT_EQ(d.post_calls.load(), 1u) << "held past ibv_modify_qp";
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_EQ(DestroyQp(r.qp), 0);
  EXPECT_EQ(d.post_calls.load(), 2u) << "held past ibv_destroy_qp";
  const std::string report = ReportText();
  EXPECT_NE(report.find("before ibv_modify_qp 1"), std::string::npos) << report;
  EXPECT_NE(report.find("before ibv_destroy_qp 1"), std::string::npos)
      << report;
}

TEST_F(DeferTest, TheProgressThreadHandsOverWithoutPolls) {
  ConfigureDefer(1e6);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (d.post_calls.load() == 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(d.post_calls.load(), 1u);
}

TEST_F(DeferTest, AFullProviderQueueIsRetried) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  d.fail_post_at = 0;  // the provider has no room for now
  Chain ch(2, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ibv_wc wc[4];
  ibv_poll_cq(r.cq, 4, wc);
  EXPECT_TRUE(d.Posts().empty());
  d.fail_post_at = -1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (d.Posts().size() < 2 && std::chrono::steady_clock::now() < end) {
    ibv_poll_cq(r.cq, 4, wc);
  }
  const std::vector<PostRecord> posts = d.Posts();
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(posts[0].wr_id, 100u);
  EXPECT_EQ(posts[1].wr_id, 101u);
  EXPECT_NE(ReportText().find("send queue was full"), std::string::npos);
}

TEST_F(DeferTest, QpsOfALockFreeThreadDomainSpin) {
  ConfigureDefer(300e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  int td_marker = 0;
  ibv_parent_domain_init_attr pattr{};
  pattr.pd = r.pd;
  pattr.td = reinterpret_cast<ibv_td*>(&td_marker);
  ibv_pd* pd = ibv_alloc_parent_domain(r.ctx, &pattr);
  ASSERT_NE(pd, nullptr);
  ibv_qp_init_attr init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_RC;
  ibv_qp* qp = CreateQp(pd, &init);
  ASSERT_NE(qp, nullptr);
  Chain ch(1, 64);
  const uint64_t t0 = emulate::ReadTsc();
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(ibv_post_send(qp, ch.head(), &bad), 0);
  EXPECT_EQ(d.post_calls.load(), 1u) << "a spin posts before it returns";
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(), Ticks(300e3));
  EXPECT_NE(ReportText().find("thread domain without locks 1"),
            std::string::npos);
  EXPECT_EQ(DestroyQp(qp), 0);
}

TEST_F(DeferTest, TheReportNamesTheMode) {
  ConfigureDefer(10e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 1, std::chrono::seconds(5)));
  const std::string report = ReportText();
  EXPECT_NE(report.find("latency +10us (defer)"), std::string::npos) << report;
  EXPECT_NE(report.find("defer: QPs deferring 1; posts handed to the provider"),
            std::string::npos)
      << report;
  // Where its progress thread ran (VERBSEMU_DEFER_CPU, auto by default).
  EXPECT_NE(report.find("; progress thread on CPUs "), std::string::npos)
      << report;
}

}  // namespace
}  // namespace verbsemu::shim::internal
