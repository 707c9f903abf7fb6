// The bandwidth knobs on the fake device: padding (made at RTR on the
// shim's own context, batched, never for reads) and pacing.
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

TEST_F(ShimTest, PaddingPathIsMadeAtRtrOnTheShimsOwnContext) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  EXPECT_EQ(d.open_contexts.load(), 2);  // the application's and the shim's
  EXPECT_EQ(d.live_qps.load(), 2);       // the application's RC, the UD
  Chain ch(1, 1 << 20);
  ASSERT_EQ(Post(r.qp, ch), 0);
  for (const PostRecord& p : d.Posts()) {
    if (p.qp->qp_type == IBV_QPT_UD) {
      EXPECT_NE(p.qp->context, r.ctx);
    } else {
      EXPECT_EQ(p.qp->context, r.ctx);
    }
  }
  ASSERT_EQ(CloseDevice(r.ctx), 0);
  EXPECT_EQ(d.open_contexts.load(), 0);  // the shim closed its own too
}

TEST_F(ShimTest, LargeMessagePaddedBeforeDataOnShimOwnedUdQp) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  Res r = QpAfterOnePost(d, 1 << 20);
  auto posts = d.Posts();
  // 1 MiB of padding in 1 KiB datagrams, then the application's WR.
  ASSERT_EQ(posts.size(), 1025u);
  for (size_t i = 0; i + 1 < posts.size(); ++i) {
    EXPECT_NE(posts[i].qp, r.qp);
    EXPECT_EQ(posts[i].remote_qpn, 0xFFFFFEu);
    EXPECT_EQ(posts[i].bytes, 1024u);
  }
  EXPECT_EQ(posts.back().qp, r.qp);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.pad_datagrams, 1024u);
  EXPECT_EQ(c.pad_bytes, 1u << 20);
  // The application's CQ saw nothing from the padding.
  ibv_wc wc[4];
  EXPECT_EQ(ibv_poll_cq(r.cq, 4, wc), 0);
}

TEST_F(ShimTest, SmallMessagePaddingIsBatchedAtThreshold) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 1024);
  for (int i = 0; i < 63; ++i) {
    ASSERT_EQ(Post(r.qp, ch), 0);
  }
  EXPECT_EQ(d.ud_datagrams.load(), 0u);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.ud_datagrams.load(), 64u);
}

TEST_F(ShimTest, ReadsAreNotPadded) {
  ConfigureBandwidth("25%");
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 1 << 20, IBV_WR_RDMA_READ);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.ud_datagrams.load(), 0u);
}

TEST_F(ShimTest, AbsoluteTargetUsesPortRate) {
  ConfigureBandwidth("25Gbit/s");  // of 100 Gbit/s
  FakeDevice d("fake0");
  QpAfterOnePost(d, 1 << 20);
  EXPECT_EQ(d.ud_datagrams.load(), 3072u);  // 3 bytes of padding per byte
}

TEST_F(ShimTest, PacingSpacesReleasesAtLeastAtTargetRate) {
  // The "real" link is far faster than the target.
  ConfigureBandwidth("10Gbit/s", 0, emulate::BwMode::kPace, 1e12);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(1, 65536);
  const int kPosts = 50;
  uint64_t first = 0;
  for (int i = 0; i < kPosts; ++i) {
    ASSERT_EQ(Post(r.qp, ch), 0);
    if (i == 0) first = d.last_post_tsc.load();
  }
  // 49 further messages cannot have been released faster than 10 Gbit/s.
  const double min_ns = 49.0 * 65536 * 8 / 10.0 * (1 - 1e-12 * 10e9 / 1);
  EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - first), min_ns * 0.99);
  EXPECT_EQ(d.ud_datagrams.load(), 0u);  // pace wastes no wire
}

}  // namespace
}  // namespace verbsemu::shim::internal
