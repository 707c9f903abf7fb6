// The defer mode over a provider that behaves as mlx5 (the fake device's
// Personality::kMlx5): what mlx5 refuses in the post itself (a QP not yet
// at RTS, inline data above its limit, too many SGEs) the shim's post
// refuses at once with mlx5's errno, and no such WR is ever held where it
// would block the QP's later posts; a genuinely full send queue is still
// retried; with MLX5_SINGLE_THREADED=1 no thread of the shim's own posts.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "emulate/config.h"
#include "shim/internal/defer_sq.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class Mlx5DeferTest : public ShimTest {
 protected:
  // An mlx5 context (its first QP unused) for the QPs of a test.
  static FakeQpEnv Mlx5Context(FakeDevice& d) {
    if (d.personality != Personality::kMlx5) {
      d.personality = Personality::kMlx5;
    }
    FakeQpEnv e = MakeFakeQp(d, {.connect = false});
    EXPECT_NE(e.qp, nullptr);
    return e;
  }
  // A QP made through the shim with these caps, connected unless not.
  static ibv_qp* QpWithCaps(const FakeQpEnv& e, bool wr_api,
                            bool connect = true) {
    ibv_qp_init_attr_ex a{};
    a.send_cq = e.cq;
    a.recv_cq = e.cq;
    a.qp_type = IBV_QPT_RC;
    a.pd = e.pd;
    a.cap.max_send_wr = kDepth;
    a.cap.max_send_sge = 2;
    a.cap.max_inline_data = 16;
    ibv_qp* qp = nullptr;
    if (wr_api) {
      a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
      a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
      qp = ibv_create_qp_ex(e.ctx, &a);
    } else {
      ibv_qp_init_attr init{};
      init.send_cq = a.send_cq;
      init.recv_cq = a.recv_cq;
      init.qp_type = a.qp_type;
      init.cap = a.cap;
      qp = CreateQp(e.pd, &init);
    }
    EXPECT_NE(qp, nullptr);
    if (qp != nullptr && connect) {
      EXPECT_TRUE(ConnectFakeQp(qp));
    }
    return qp;
  }
  static constexpr uint32_t kDepth = 4;
};

// Declared after a test's FakeDevice, so it goes first: the progress thread
// stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST_F(Mlx5DeferTest, InlineOverflowIsRefusedAtOnceAndNothingWedges) {
  ConfigureDefer(50e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false);
  char data[32] = "more than the QP's 16 bytes";
  ibv_sge sge{reinterpret_cast<uintptr_t>(data), sizeof data, 0};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_INLINE;
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, &wr, &bad), ENOMEM) << "as mlx5 answers";
  EXPECT_EQ(bad, &wr);
  sge.length = 16;  // within the limit: taken
  wr.wr_id = 7;
  ASSERT_EQ(ibv_post_send(qp, &wr, &bad), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 1, seconds(5))) << "the QP is wedged";
  EXPECT_EQ(d.Posts()[0].wr_id, 7u);
  EXPECT_NE(ReportText().find("posts refused at once as the provider would 1"),
            std::string::npos)
      << ReportText();
}

TEST_F(Mlx5DeferTest, PostBeforeRtsIsRefusedAtOnceAndNothingWedges) {
  ConfigureDefer(50e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false, /*connect=*/false);
  Chain ch(2, 64);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), ENOMEM) << "in RESET";
  EXPECT_EQ(bad, ch.head()) << "nothing taken";
  ASSERT_TRUE(ConnectFakeQp(qp));
  ASSERT_EQ(ibv_post_send(qp, ch.head(), &bad), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 2, seconds(5))) << "the QP is wedged";
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), ENOMEM) << "after RESET";
  a.qp_state = IBV_QPS_INIT;
  ASSERT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), ENOMEM) << "at INIT";
  EXPECT_EQ(d.Posts().size(), 2u);
}

TEST_F(Mlx5DeferTest, TooManySgesAreRefusedWithEnomem) {
  ConfigureDefer(50e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false);
  Chain ch(3, 64);
  std::vector<ibv_sge> three(3, ch.sges[1]);
  ch.wrs[1].sg_list = three.data();
  ch.wrs[1].num_sge = 3;  // the QP has 2
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, ch.head(), &bad), ENOMEM);
  EXPECT_EQ(bad, &ch.wrs[1]) << "the first WR was taken";
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 1, seconds(5)));
  ASSERT_EQ(ibv_post_send(qp, &ch.wrs[2], &bad), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 2, seconds(5))) << "the QP is wedged";
  const std::vector<PostRecord> posts = d.Posts();
  EXPECT_EQ(posts[0].wr_id, 100u);
  EXPECT_EQ(posts[1].wr_id, 102u);
}

// ibv_wr_*: mlx5 reports its setters' refusals, and a batch before RTS
// (its error wr_complete), at ibv_wr_complete.
TEST_F(Mlx5DeferTest, WrApiRefusalsComeFromWrCompleteAtOnce) {
  ConfigureDefer(50e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/true, /*connect=*/false);
  ibv_qp_ex* x = Real().qp_to_qp_ex(qp);
  char data[32] = {};
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, data, 8);
  EXPECT_EQ(ibv_wr_complete(x), EINVAL) << "before RTS";
  ASSERT_TRUE(ConnectFakeQp(qp));
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, data, sizeof data);
  EXPECT_EQ(ibv_wr_complete(x), ENOMEM) << "inline above 16 bytes";
  const ibv_sge sges[3] = {{0x1000, 8, 1}, {0x2000, 8, 1}, {0x3000, 8, 1}};
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_sge_list(x, 3, sges);
  EXPECT_EQ(ibv_wr_complete(x), ENOMEM) << "3 SGEs, the QP has 2";
  ibv_wr_start(x);
  x->wr_id = 9;
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, data, 16);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 1, seconds(5))) << "the QP is wedged";
  EXPECT_EQ(d.Posts()[0].wr_id, 9u);
  EXPECT_EQ(d.complete_errors.load(), 0u) << "no refused batch was replayed";
}

// The provider's send queue holds kDepth WRs whose completions nobody
// polled: its ENOMEM then means "full", and the hand-over waits for room.
TEST_F(Mlx5DeferTest, AFullSendQueueIsStillRetried) {
  ConfigureDefer(20e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false);
  Chain ch(kDepth, 64);
  for (ibv_send_wr& w : ch.wrs) w.send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(qp, ch), 0);
  // Handed over by the progress thread: no poll frees the queue.
  const auto end = std::chrono::steady_clock::now() + seconds(5);
  while (d.Posts().size() < kDepth && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(d.Posts().size(), kDepth);
  ASSERT_EQ(Post(qp, ch), 0);  // the shim holds these: within its depth
  const auto retried = std::chrono::steady_clock::now() + seconds(5);
  while (ReportText().find("send queue was full") == std::string::npos &&
         std::chrono::steady_clock::now() < retried) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_NE(ReportText().find("send queue was full"), std::string::npos);
  EXPECT_EQ(d.Posts().size(), kDepth) << "the provider had no room";
  ASSERT_TRUE(PollUntilPosts(d, e.cq, uint64_t{2} * kDepth, seconds(5)));
  const std::vector<PostRecord> posts = d.Posts();
  for (size_t i = 0; i < posts.size(); ++i) {
    EXPECT_EQ(posts[i].wr_id, 100 + i % kDepth) << i;
  }
  EXPECT_EQ(ReportText().find("refused after"), std::string::npos);
}

// A refusal the shim could not foresee (here: the QP was reset behind its
// back) is dropped and counted, never retried forever.
TEST_F(Mlx5DeferTest, ARefusalAtTheHandOverIsDroppedNotRetried) {
  ConfigureDefer(20e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(Real().modify_qp(qp, &a, IBV_QP_STATE), 0);
  Chain ch(1, 64);
  ASSERT_EQ(Post(qp, ch), 0);
  const auto end = std::chrono::steady_clock::now() + seconds(5);
  while (ReportText().find("refused after") == std::string::npos &&
         std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_NE(ReportText().find("WRs the provider refused after their post "
                              "returned 1"),
            std::string::npos)
      << ReportText();
  ASSERT_TRUE(ConnectFakeQp(qp, /*through_shim=*/false));
  ch.wrs[0].wr_id = 5;
  ASSERT_EQ(Post(qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 1, seconds(5))) << "the QP is wedged";
  EXPECT_EQ(d.Posts()[0].wr_id, 5u);
}

// The shim's count of what the provider holds: a signaled WR's completion
// frees it and the unsignaled WRs before it; a completion polled on
// another thread before the hand-over is noted still counts; WRs the
// provider did not take are not counted.
TEST(SqWindowTest, CountsWhatTheProviderHolds) {
  SqWindow w;
  w.set_depth(4);
  const uint32_t second[] = {2};
  w.Offer(second, 1);
  w.Took(2);
  EXPECT_EQ(w.Outstanding(), 2u);
  w.Completed();
  EXPECT_EQ(w.Outstanding(), 0u);
  const uint32_t all[] = {1, 2, 3};
  w.Offer(all, 3);
  w.Completed();  // the first WR's, polled before Took
  w.Took(1);      // the provider took one of three
  EXPECT_EQ(w.Outstanding(), 0u);
  w.Completed();  // none left to free
  EXPECT_EQ(w.Outstanding(), 0u);
  w.Offer(all, 3);
  w.Took(3);
  EXPECT_EQ(w.Outstanding(), 3u);
  w.Emptied();  // RESET
  EXPECT_EQ(w.Outstanding(), 0u);
  const std::vector<uint32_t> many(100, 1);
  w.Offer(many.data(), many.size());  // more than a send queue holds
  w.Took(1);
  EXPECT_EQ(w.Outstanding(), SqWindow::kUnknown);
  w.Emptied();
  EXPECT_EQ(w.Outstanding(), 0u);
}

// A modify the shim did not see still moves ibv_qp::state: a QP connected
// that way is not refused as if it were still in RESET.
TEST_F(Mlx5DeferTest, AQpConnectedBehindTheShimIsNotRefused) {
  ConfigureDefer(20e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  FakeQpEnv e = Mlx5Context(d);
  ibv_qp* qp = QpWithCaps(e, /*wr_api=*/false, /*connect=*/false);
  ASSERT_TRUE(ConnectFakeQp(qp, /*through_shim=*/false));
  Chain ch(1, 64);
  ASSERT_EQ(Post(qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, e.cq, 1, seconds(5)));
}

// Two application threads, each with a context of two QPs, posting with
// pauses in which the progress thread would hand posts over: with
// MLX5_SINGLE_THREADED=1 only the application enters a context's post
// path, so no two threads are ever in one at once.
TEST_F(Mlx5DeferTest, WithoutProviderLocksNoThreadOfTheShimPosts) {
  const ScopedEnv env("MLX5_SINGLE_THREADED", "1");
  ConfigureDefer(20e3);
  FakeDevice d("mlx5_0");
  StopEngineFirst stop;
  d.post_dwell_ns = 20'000;
  d.personality = Personality::kMlx5;  // before the threads read it
  constexpr int kPosts = 200;
  auto app = [&] {
    FakeQpEnv e = Mlx5Context(d);
    ibv_qp* qps[2] = {QpWithCaps(e, false), QpWithCaps(e, false)};
    Chain ch(1, 64);
    ch.wrs[0].send_flags = IBV_SEND_SIGNALED;
    ibv_wc wc[8];
    for (int i = 0; i < kPosts; ++i) {
      ASSERT_EQ(Post(qps[i % 2], ch), 0);
      std::this_thread::sleep_for(std::chrono::microseconds(30));
      ibv_poll_cq(e.cq, 8, wc);  // frees the send queues
    }
  };
  std::thread other(app);
  app();
  other.join();
  EXPECT_EQ(d.Posts().size(), 2u * kPosts);
  EXPECT_EQ(d.concurrent_entries.load(), 0u);
  const std::string report = ReportText();
  // Each context's three QPs (its first one, unused, and the two above).
  EXPECT_NE(report.find("provider without locks 6"), std::string::npos)
      << report;
  EXPECT_NE(report.find("defer: MLX5_SINGLE_THREADED=1: the provider takes no "
                        "locks"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("of them by the progress thread"), std::string::npos)
      << report;
}

}  // namespace
}  // namespace verbsemu::shim::internal
