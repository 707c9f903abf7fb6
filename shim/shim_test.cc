// Shim tests over a recording fake device: patching, WR chains, bad_wr
// mapping, the ibv_wr_* path, many threads, and teardown with work in
// flight (latency_test.cc and bandwidth_test.cc: the knobs). No timing upper
// bounds anywhere: the only time-based checks are lower bounds a spin
// guarantees.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

TEST_F(ShimTest, OpenPatchesDataPathAndKeepsOriginalsPerContext) {
  FakeDevice d0("fake0"), d1("fake1");
  ibv_context* c0 = Open(d0);
  ibv_context* c1 = Open(d1);
  ASSERT_TRUE(IsContextPatched(c0));
  ASSERT_TRUE(IsContextPatched(c1));
  // Both contexts now dispatch through the same shim function...
  EXPECT_EQ(c0->ops.post_send, c1->ops.post_send);
  EXPECT_EQ(c0->ops.poll_cq, c1->ops.poll_cq);
  // ...which forwards each call to its own device.
  Res r0 = MakeQp(d0, false);
  Res r1 = MakeQp(d1, false);
  Chain a(1, 64), b(2, 64);
  ASSERT_EQ(Post(r0.qp, a), 0);
  ASSERT_EQ(Post(r1.qp, b), 0);
  EXPECT_EQ(d0.Posts().size(), 1u);
  EXPECT_EQ(d1.Posts().size(), 2u);
  EXPECT_EQ(CloseDevice(c0), 0);
  EXPECT_EQ(CloseDevice(c1), 0);
  EXPECT_FALSE(IsContextPatched(c0));
}

TEST_F(ShimTest, VerbsContextSlotsArePatchedOnlyWithinSz) {
  FakeDevice d("fake0");
  ibv_context* ctx = Open(d);
  verbs_context* v = verbs_get_ctx(ctx);
  // create_qp_ex is wrapped: a QP made through it is known to the shim.
  Res r = MakeQp(d, true);
  QpCounters c;
  EXPECT_TRUE(GetQpCounters(r.qp, &c));
  // create_cq_ex is forwarded to the device.
  ibv_cq_init_attr_ex cqa{};
  cqa.cqe = 8;
  EXPECT_EQ(v->create_cq_ex(ctx, &cqa), nullptr);
  EXPECT_EQ(d.create_cq_ex_calls.load(), 1u);
}

TEST_F(ShimTest, SmallVerbsContextIsNotReadBeyondSz) {
  FakeDevice d("fake0");
  // Open through the fake, then shrink sz so that create_qp_ex/create_cq_ex
  // lie outside the provider's verbs_context: the shim must leave them.
  ResetForTesting();
  SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
  ibv_context* raw = Real().open_device(d.device());
  verbs_context* v = verbs_get_ctx(raw);
  auto* before_qp_ex = v->create_qp_ex;
  v->sz = sizeof(verbs_context) - offsetof(verbs_context, ABI_placeholder1);
  ResetForTesting();
  // Re-register this context as if freshly opened.
  FakeDevice d2("fake2");
  ibv_context* ctx = Open(d2);
  verbs_context* v2 = verbs_get_ctx(ctx);
  EXPECT_NE(v2->create_qp_ex, nullptr);
  // The shrunken one was never registered; its slot is untouched.
  EXPECT_EQ(v->create_qp_ex, before_qp_ex);
}

TEST_F(ShimTest, DeviceFilterLeavesOtherDevicesAlone) {
  Settings c;
  c.engine.latency_ns = 1000;
  c.devices = {"fake1"};
  Configure(c);
  FakeDevice d0("fake0"), d1("fake1");
  ibv_context* c0 = Open(d0);
  ibv_context* c1 = Open(d1);
  EXPECT_FALSE(IsContextPatched(c0));
  EXPECT_TRUE(IsContextPatched(c1));
}

// A library constructor may open a device before the shim's constructor has
// run: the settings are read then, on first use.
TEST_F(ShimTest, DeviceOpenedBeforeConfigurationGetsTheSettings) {
  ResetForTesting();  // as if nothing had configured the engine yet
  setenv("VERBSEMU_LATENCY", "3us", 1);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  unsetenv("VERBSEMU_LATENCY");
  EXPECT_TRUE(IsContextPatched(r.ctx));
  const uint64_t t0 = emulate::ReadTsc();
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(3000));
}

// With no knob and no report the shim touches nothing: the context keeps
// every provider function and the shim has no state for it.
TEST_F(ShimTest, NoKnobNoReportPatchesNothing) {
  Configure(Settings{});
  FakeDevice d("fake0");
  ibv_context* raw = Real().open_device(d.device());
  const ibv_context_ops provider = raw->ops;
  ResetForTesting();
  Res r = MakeQp(d, true);
  EXPECT_FALSE(IsContextPatched(r.ctx));
  EXPECT_EQ(r.ctx->ops.post_send, provider.post_send);
  EXPECT_EQ(r.ctx->ops.poll_cq, provider.poll_cq);
  EXPECT_EQ(r.ctx->ops.post_recv, provider.post_recv);
  EXPECT_EQ(LiveQpCount(), 0u);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.Posts().size(), 1u);
}

// Latency alone wraps the posting calls and batch control, nothing else.
std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(ShimTest, ReportSignalWritesTheReportAndTheProcessGoesOn) {
  const std::string path = ::testing::TempDir() + "/verbsemu_signal_report";
  std::remove(path.c_str());
  Settings c;
  c.report = path;
  c.report_signal = SIGUSR2;
  Configure(c);
  FakeDevice d("sig0");
  Res r = MakeQp(d, /*wr_api=*/false);
  Chain chain(3, 100);
  ASSERT_EQ(Post(r.qp, chain), 0);
  ASSERT_EQ(std::raise(SIGUSR2), 0);
  // The watcher thread writes the report; wait for it (a generous bound,
  // which only a lost request reaches).
  std::string text;
  for (int i = 0; i < 3000 && text.find("wrs 3,") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    text = ReadWholeFile(path);
  }
  EXPECT_NE(text.find("verbsemu report"), std::string::npos) << text;
  EXPECT_NE(text.find("device sig0: qps 1, wrs 3,"), std::string::npos) << text;
  // The process goes on, and the shim with it.
  ASSERT_EQ(Post(r.qp, chain), 0);
  EXPECT_EQ(Counters(r.qp).wrs, 6u);
}

std::atomic<int> g_app_usr1_calls{0};

TEST_F(ShimTest, ReportSignalLeavesTheApplicationsHandlerAlone) {
  struct sigaction app {};
  app.sa_handler = +[](int) { g_app_usr1_calls.fetch_add(1); };
  sigemptyset(&app.sa_mask);
  struct sigaction saved {};
  ASSERT_EQ(sigaction(SIGUSR1, &app, &saved), 0);
  Settings c;
  c.report = ::testing::TempDir() + "/verbsemu_usr1_report";
  c.report_signal = SIGUSR1;
  Configure(c);
  FakeDevice d("sig1");
  ibv_context* ctx = Open(d);
  struct sigaction now {};
  ASSERT_EQ(sigaction(SIGUSR1, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, app.sa_handler);
  ASSERT_EQ(std::raise(SIGUSR1), 0);
  EXPECT_EQ(g_app_usr1_calls.load(), 1);
  EXPECT_EQ(CloseDevice(ctx), 0);
  sigaction(SIGUSR1, &saved, nullptr);
}

TEST_F(ShimTest, InvalidConfigurationMeansPurePassThrough) {
  verbsemu::shim::internal::Configure(Settings{},
                                      "VERBSEMU_LATENCY='x' is not accepted");
  FakeDevice d("fake0");
  ibv_context* ctx = Open(d);
  EXPECT_FALSE(IsContextPatched(ctx));
  EXPECT_NE(ReportText().find("configuration error"), std::string::npos);
}

TEST_F(ShimTest, ChainPassesThroughUnsplitAndCounted) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(5, 100);
  ASSERT_EQ(Post(r.qp, ch), 0);
  auto posts = d.Posts();
  ASSERT_EQ(posts.size(), 5u);
  EXPECT_EQ(d.post_calls.load(), 1u);  // one real post for the whole chain
  for (int i = 0; i < 5; ++i) EXPECT_EQ(posts[i].wr_id, 100u + i);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.posts, 1u);
  EXPECT_EQ(c.wrs, 5u);
  EXPECT_EQ(c.bytes, 500u);
}

TEST_F(ShimTest, BadWrPointsIntoApplicationChain) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(4, 10);
  EXPECT_EQ(PostFailingAt(d, r.qp, ch, 2), &ch.wrs[2]);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.wrs, 2u);  // only the WRs before bad_wr were posted
  EXPECT_EQ(c.bytes, 20u);
  EXPECT_EQ(c.failed_posts, 1u);
}

TEST_F(ShimTest, BadWrMappedWithEmulationOn) {
  ConfigureBandwidth("50%", 500);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(3, 10);
  EXPECT_EQ(PostFailingAt(d, r.qp, ch, 0), &ch.wrs[0]);
}

TEST_F(ShimTest, WrApiIsInterceptedAndCounted) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  ibv_qp_ex* x = Real().qp_to_qp_ex(r.qp);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->wr_bind_mw, nullptr);  // NULL provider slots stay NULL
  ibv_wr_start(x);
  x->wr_id = 1;
  x->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_send(x);
  ibv_wr_set_sge(x, 1, 0x1000, 300);
  x->wr_id = 2;
  x->wr_flags = 0;
  ibv_wr_rdma_write(x, 5, 0x2000);
  ibv_sge list[2] = {{0x1000, 10, 1}, {0x2000, 20, 1}};
  ibv_wr_set_sge_list(x, 2, list);
  x->wr_id = 3;
  ibv_wr_rdma_read(x, 5, 0x3000);
  ibv_wr_set_sge(x, 1, 0x1000, 4);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  auto posts = d.Posts();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_TRUE(posts[0].via_wr_api);
  EXPECT_EQ(posts[0].bytes, 300u);
  EXPECT_EQ(posts[1].bytes, 30u);
  EXPECT_EQ(posts[2].opcode, IBV_WR_RDMA_READ);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.posts, 1u);
  EXPECT_EQ(c.wrs, 3u);
  EXPECT_EQ(c.bytes, 334u);
  // The signaled send completes through the patched poll_cq.
  ibv_wc wc[4];
  EXPECT_EQ(ibv_poll_cq(r.cq, 4, wc), 1);
  EXPECT_EQ(wc[0].wr_id, 1u);
}

TEST_F(ShimTest, WrAbortAndFailedCompleteAreNotCountedAsPosted) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  ibv_qp_ex* x = Real().qp_to_qp_ex(r.qp);
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_inline_data(x, nullptr, 16);
  ibv_wr_abort(x);
  EXPECT_EQ(Counters(r.qp).wrs, 0u);
  d.fail_complete = true;
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_data_buf bufs[2] = {{nullptr, 8}, {nullptr, 8}};
  ibv_wr_set_inline_data_list(x, 2, bufs);
  EXPECT_EQ(ibv_wr_complete(x), EINVAL);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.wrs, 0u);
  EXPECT_EQ(c.failed_posts, 1u);
  d.fail_complete = false;
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_inline_data_list(x, 2, bufs);
  EXPECT_EQ(ibv_wr_complete(x), 0);
  EXPECT_EQ(Counters(r.qp).bytes, 16u);
}

TEST_F(ShimTest, ManyThreadsOwnAndSharedQps) {
  FakeDevice d("fake0");
  d.record_posts = false;
  Res shared = MakeQp(d, false);
  constexpr int kThreads = 4, kPosts = 5000;
  std::vector<Res> own;
  for (int t = 0; t < kThreads; ++t) own.push_back(MakeQp(d, t % 2 == 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Chain ch(2, 8);
      ibv_qp_ex* x = Real().qp_to_qp_ex(own[t].qp);
      for (int i = 0; i < kPosts; ++i) {
        ibv_send_wr* bad = nullptr;
        EXPECT_EQ(ibv_post_send(shared.qp, ch.head(), &bad), 0);
        if (x != nullptr) {
          ibv_wr_start(x);
          ibv_wr_send(x);
          ibv_wr_set_sge(x, 1, 0, 8);
          EXPECT_EQ(ibv_wr_complete(x), 0);
        } else {
          EXPECT_EQ(ibv_post_send(own[t].qp, ch.head(), &bad), 0);
        }
        ibv_wc wc[4];
        ibv_poll_cq(shared.cq, 4, wc);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(Counters(shared.qp).wrs, 2u * kThreads * kPosts);
  EXPECT_EQ(Counters(shared.qp).posts, 1u * kThreads * kPosts);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(Counters(own[t].qp).posts, 1u * kPosts);
  }
}

TEST_F(ShimTest, ManyThreadsWithEmulationOn) {
  ConfigureBandwidth("50%", 200);
  FakeDevice d("fake0");
  d.record_posts = false;
  Res shared = MakeQp(d, false);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      Chain ch(1, 4096);
      for (int i = 0; i < 2000; ++i) {
        ibv_send_wr* bad = nullptr;
        EXPECT_EQ(ibv_post_send(shared.qp, ch.head(), &bad), 0);
      }
    });
  }
  for (auto& th : threads) th.join();
  const QpCounters c = Counters(shared.qp);
  EXPECT_EQ(c.wrs, 6000u);
  // 6000 * 4 KiB of data at 50%: as much padding, minus what is still owed.
  EXPECT_LE(c.pad_bytes, 6000u * 4096);
  EXPECT_GE(c.pad_bytes + 65536 + 1024, 6000u * 4096);
  EXPECT_EQ(d.ud_bytes.load(), c.pad_bytes);
}

TEST_F(ShimTest, DestroyAndCloseWithWorkInFlight) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  // Signaled sends never polled, and padding in flight on the shim's QP.
  Chain ch(8, 65536);
  for (auto& w : ch.wrs) w.send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GT(d.ud_datagrams.load(), 0u);
  EXPECT_EQ(d.live_pds.load(), 2);  // application's + shim's
  EXPECT_EQ(d.live_ahs.load(), 1);
  EXPECT_EQ(LiveQpCount(), 1u);
  ASSERT_EQ(DestroyQp(r.qp), 0);
  EXPECT_EQ(LiveQpCount(), 0u);
  EXPECT_EQ(d.live_ahs.load(), 0);  // the padding AH went with the QP
  // The shim's own PD/CQ/QP/MR are gone before the device closes.
  ASSERT_EQ(CloseDevice(r.ctx), 0);
  EXPECT_EQ(d.live_pds.load(), 1);  // only the application's PD is left
  EXPECT_EQ(d.live_mrs.load(), 0);
  EXPECT_EQ(d.live_qps.load(), 0);
  EXPECT_EQ(d.live_cqs.load(), 1);  // the application's CQ
  EXPECT_EQ(d.open_contexts.load(), 0);
  // The destroyed QP is still in the report.
  const std::string report = ReportText();
  EXPECT_NE(report.find("device fake0"), std::string::npos) << report;
  EXPECT_NE(report.find("wrs 8, bytes 524288"), std::string::npos) << report;
}

TEST_F(ShimTest, CloseWithLiveQpsRetiresThem) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  Chain ch(1, 8);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_EQ(CloseDevice(r.ctx), 0);
  EXPECT_EQ(LiveQpCount(), 0u);
  EXPECT_NE(ReportText().find("wrs 1,"), std::string::npos);
}

TEST_F(ShimTest, UninitContextForgetsWithoutVerbsCalls) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  Res r = QpAfterOnePost(d, 1 << 16);
  const int pds = d.live_pds.load();
  VerbsUninitContext(verbs_get_ctx(r.ctx));
  EXPECT_FALSE(IsContextPatched(r.ctx));
  EXPECT_EQ(d.live_pds.load(), pds);  // nothing destroyed behind libibverbs
}

TEST_F(ShimTest, QpCreatedBehindTheShimIsAdoptedOnFirstPost) {
  FakeDevice d("fake0");
  ibv_context* ctx = Open(d);
  ibv_pd* pd = Real().alloc_pd(ctx);
  ibv_cq* cq = Real().create_cq(ctx, 8, nullptr, nullptr, 0);
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.qp_type = IBV_QPT_RC;
  ibv_qp* qp = Real().create_qp(pd, &init);  // not through the shim
  QpCounters c;
  EXPECT_FALSE(GetQpCounters(qp, &c));
  Chain ch(3, 10);
  ASSERT_EQ(Post(qp, ch), 0);
  EXPECT_TRUE(GetQpCounters(qp, &c));
  EXPECT_EQ(c.wrs, 3u);
}

TEST_F(ShimTest, ReceiveAndNotifyPassThrough) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ibv_recv_wr rwr{};
  ibv_recv_wr* rbad = nullptr;
  EXPECT_EQ(ibv_post_recv(r.qp, &rwr, &rbad), 0);
  EXPECT_EQ(ibv_req_notify_cq(r.cq, 0), 0);
  ibv_srq srq{};
  srq.context = r.ctx;
  EXPECT_EQ(ibv_post_srq_recv(&srq, &rwr, &rbad), 0);
  EXPECT_EQ(d.recv_calls.load(), 2u);
  EXPECT_EQ(d.notify_calls.load(), 1u);
}

TEST_F(ShimTest, ForkChildStartsWithFreshCounters) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 8);
  ASSERT_EQ(Post(r.qp, ch), 0);
  AtForkPrepare();
  AtForkChild();  // as the child would run it
  EXPECT_EQ(Counters(r.qp).wrs, 0u);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(Counters(r.qp).wrs, 1u);
}

TEST(RealVerbsVersionTest, ParsesRunningVersion) {
  EXPECT_EQ(RdmaCoreVersionFromPath(
                "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
            44);
  EXPECT_EQ(RdmaCoreVersionFromPath("/opt/libibverbs.so.1.15.50.0"), 50);
  EXPECT_EQ(RdmaCoreVersionFromPath("/usr/lib/libibverbs.so.1"), 0);
  EXPECT_EQ(RdmaCoreVersionFromPath(nullptr), 0);
}

}  // namespace
}  // namespace verbsemu::shim::internal
