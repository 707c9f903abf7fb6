// The latency knob on the fake device: what latency alone wraps, where the
// wait runs (before the provider is called), reads owing two legs, long
// waits that sleep.
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
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

TEST_F(ShimTest, LatencyAloneWrapsOnlyThePostingCalls) {
  ConfigureLatencyAlone(1000);
  FakeDevice d("fake0");
  ibv_context* raw = Real().open_device(d.device());
  const ibv_context_ops provider = raw->ops;
  Res r = MakeQp(d, true);
  EXPECT_TRUE(IsContextPatched(r.ctx));
  EXPECT_NE(r.ctx->ops.post_send, provider.post_send);
  EXPECT_EQ(r.ctx->ops.poll_cq, provider.poll_cq);
  EXPECT_EQ(r.ctx->ops.post_recv, provider.post_recv);
  EXPECT_EQ(r.ctx->ops.req_notify_cq, provider.req_notify_cq);
  // ibv_wr_* batches are held back and replayed after the wait, outside
  // the provider's send-queue lock: every builder call is recorded.
  FakeQpEnv native = MakeFakeQp(d, {.through_shim = false, .wr_api = true});
  EXPECT_NE(r.qpx->wr_complete, native.qpx->wr_complete);
  EXPECT_NE(r.qpx->wr_start, native.qpx->wr_start);
  EXPECT_NE(r.qpx->wr_send, native.qpx->wr_send);
  EXPECT_NE(r.qpx->wr_set_sge, native.qpx->wr_set_sge);
  EXPECT_NE(r.qpx->wr_set_ud_addr, native.qpx->wr_set_ud_addr);
  EXPECT_NE(r.qpx->wr_rdma_read, native.qpx->wr_rdma_read);
  EXPECT_EQ(r.qpx->wr_bind_mw, nullptr) << "a NULL slot stays NULL";
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(r.qpx);
  ibv_wr_send(r.qpx);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(1000));
}

// Latency alone installs the lean post_send: it still waits one one-way
// latency per chain, two when a READ is in it, and keeps no counters.
TEST_F(ShimTest, LatencyAlonePostSendWaitsWithoutCounting) {
  ConfigureLatencyAlone(20'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  const uint64_t one_way = Cal().NsToTicks(20'000);
  const auto delay_of = [&](Chain& ch) {
    const uint64_t t0 = emulate::ReadTsc();
    EXPECT_EQ(Post(r.qp, ch), 0);
    return d.last_post_tsc.load() - t0 + ShimFixedCost();
  };
  Chain write(2, 64, IBV_WR_RDMA_WRITE), read(1, 64, IBV_WR_RDMA_READ);
  // One leg, not two: the fastest of five posts (a preempted or
  // sanitizer-slowed post only lengthens one; a second leg lengthens all).
  uint64_t w = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t one = delay_of(write);
    EXPECT_GE(one, one_way);
    w = std::min(w, one);
  }
  EXPECT_LT(w, 2 * one_way);
  EXPECT_GE(delay_of(read), 2 * one_way);
  EXPECT_EQ(d.Posts().size(), 11u);
  QpCounters c;
  EXPECT_FALSE(GetQpCounters(r.qp, &c) && c.wrs != 0) << c.wrs;
}

// On the ibv_wr_* path too, a READ batch waits two one-way latencies with
// latency alone (its opcode is wrapped though no bytes are counted).
TEST_F(ShimTest, LatencyAloneWrApiReadWaitsTwoLegs) {
  ConfigureLatencyAlone(20'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(r.qpx);
  ibv_wr_rdma_read(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            2 * Cal().NsToTicks(20'000));
}

TEST_F(ShimTest, LatencyIsInjectedBeforeTheRealPost) {
  ConfigureLatency(20'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(2, 8);
  const uint64_t target = Cal().NsToTicks(20'000);
  const uint64_t slack = ShimFixedCost();
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = emulate::ReadTsc();
    ASSERT_EQ(Post(r.qp, ch), 0);
    // A lower bound only: the spin cannot end before its deadline.
    EXPECT_GE(d.last_post_tsc.load() - t0 + slack, target);
  }
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.posts, 5u);
  EXPECT_GE(c.delay_ticks + 5 * slack, 5 * target);
  EXPECT_EQ(d.post_calls.load(), 5u);  // once per chain, not per WR
}

TEST_F(ShimTest, LongDelaySleepsButStillMeetsTheDeadline) {
  ConfigureLatency(600'000);  // above the sleep threshold: sleep, then spin
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 8);
  for (int i = 0; i < 3; ++i) {
    const uint64_t t0 = emulate::ReadTsc();
    ASSERT_EQ(Post(r.qp, ch), 0);
    EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
              Cal().NsToTicks(600'000));
  }
}

// The ibv_wr_* path waits at wr_start, before the provider takes its
// send-queue lock; the batch reaches the device no earlier than D after it.
TEST_F(ShimTest, LatencyAlsoOnTheWrApi) {
  ConfigureLatency(10'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  ibv_qp_ex* x = Real().qp_to_qp_ex(r.qp);
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_sge(x, 1, 0, 64);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(10'000));
}

// With the report on, every wait is noted with how late it ended: the
// report's "waits" line counts them, on both post APIs, and its mean is the
// delay the QP counters hold. Latency alone (no report) notes nothing.
TEST_F(ShimTest, TheReportSaysHowLateTheWaitsEnded) {
  ConfigureLatency(5'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  Chain ch(1, 8);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Post(r.qp, ch), 0);
  ibv_qp_ex* x = Real().qp_to_qp_ex(r.qp);
  ibv_wr_start(x);
  ibv_wr_send(x);
  ibv_wr_set_sge(x, 1, 0, 64);
  ASSERT_EQ(ibv_wr_complete(x), 0);
  const WaitLateness& l = E().lateness;
  EXPECT_EQ(l.count(), 4u);
  EXPECT_EQ(l.waited_ticks(), Counters(r.qp).delay_ticks);
  // Each wait at least the latency less what the shim spends itself (none
  // when that is more, as under TSan: the bound must not wrap around).
  const uint64_t owed = Cal().NsToTicks(5'000);
  const uint64_t spent = ShimFixedCost() + 2 * E().recording.whole;
  EXPECT_GE(l.waited_ticks(), 4 * (owed > spent ? owed - spent : 0));
  EXPECT_NE(ReportText().find("waits 4: mean "), std::string::npos)
      << ReportText();
  ResetForTesting();
  ConfigureLatencyAlone(5'000);
  FakeDevice d2("fake1");
  Res r2 = MakeQp(d2, false);
  ASSERT_EQ(Post(r2.qp, ch), 0);
  EXPECT_EQ(E().lateness.count(), 0u);
}

// The padding path is the shim's own: its own context on the device (its
// own doorbells and async events), made at RTR, before any post.

// A guest that woke a sleep late: the next waits spin their tail long enough
// to meet the deadline anyway, and the report says so.
TEST_F(ShimTest, LateSleepsLengthenTheSpunTailAndTheReportSaysSo) {
  ConfigureLatency(600'000);
  E().wait.late_ticks = Cal().NsToTicks(700'000);
  EXPECT_EQ(E().wait.SleepTicks(Cal().NsToTicks(600'000)), 0u);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 8);
  const uint64_t t0 = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            Cal().NsToTicks(600'000));
  EXPECT_NE(ReportText().find("long waits: sleeps woke 700 us late"),
            std::string::npos)
      << ReportText();
}

}  // namespace
}  // namespace verbsemu::shim::internal
