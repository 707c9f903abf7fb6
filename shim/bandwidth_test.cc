// The bandwidth knobs on the fake device: padding (made at RTR on the
// shim's own context, batched, never for reads) and pacing.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>
#include <unistd.h>

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
#include "shim/internal/forked_poster.h"
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
  const uint64_t start = emulate::ReadTsc();
  for (int i = 0; i < kPosts; ++i) ASSERT_EQ(Post(r.qp, ch), 0);
  // The 50th goes out no sooner than 48 messages' time at 10 Gbit/s after
  // the first post began (less the real link's own time for each): the
  // port's link may have been booked by an earlier user within its
  // catch-up window, which the first posts then continue. Measured from the
  // start: a post preempted after its release only goes out later.
  const double min_ns = 48.0 * 65536 * 8 / 10.0 * (1 - 10e9 / 1e12);
  EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - start), min_ns * 0.99);
  EXPECT_EQ(d.ud_datagrams.load(), 0u);  // pace wastes no wire
}

double Gbits(uint64_t bytes, uint64_t ticks) {
  return static_cast<double>(bytes) * 8 / Cal().TicksToNs(ticks);
}

// One virtual link per NIC port: four processes pacing on fake0 port 1 at
// 1 Gbit/s get 1 Gbit/s between them, not 1 Gbit/s each.
TEST_F(ShimTest, ProcessesPacingOnOnePortShareItsLink) {
  ConfigureBandwidth("1Gbit/s", 0, emulate::BwMode::kPace, 1e12);
  constexpr int kProcs = 4, kPosts = 30;
  constexpr uint32_t kBytes = 65536;  // 524 us each at 1 Gbit/s
  std::vector<ForkedPoster> runs;
  for (int i = 0; i < kProcs; ++i) {
    runs.push_back(ForkPoster("fake0", kPosts, kBytes));
  }
  uint64_t first = UINT64_MAX, last = 0;
  for (const ForkedPoster& p : runs) {
    ASSERT_GT(p.pid, 0);
    int status = 0;
    const std::vector<uint64_t> stamps = CollectStamps(p, &status);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    ASSERT_EQ(stamps.size(), static_cast<size_t>(kPosts));
    first = std::min(first, stamps.front());
    last = std::max(last, stamps.back());
  }
  // 120 messages: the first few ride the link's catch-up window (two
  // messages), the rest cross it one after the other. Never faster than
  // the one link (four links would give 4 Gbit/s); how close to it they
  // come on a quiet machine is device_boundary_bench's shared-link row.
  const double rate =
      Gbits(uint64_t{kProcs * kPosts - 3} * kBytes, last - first);
  EXPECT_LE(rate, 1.03) << rate << " Gbit/s over all four";
}

// A process that dies while pacing holds nothing: the one left finishes,
// and once alone it may use the whole link (more than the half it had).
TEST_F(ShimTest, ASharedLinkOutlivesAProcessKilledWhilePacing) {
  ConfigureBandwidth("1Gbit/s", 0, emulate::BwMode::kPace, 1e12);
  constexpr uint32_t kBytes = 65536;
  const ForkedPoster killed = ForkPoster("fake0", 40, kBytes, /*die_after=*/8);
  const ForkedPoster survivor = ForkPoster("fake0", 60, kBytes);
  int status = 0;
  const std::vector<uint64_t> dead = CollectStamps(killed, &status);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(dead.size(), 8u);
  const std::vector<uint64_t> stamps = CollectStamps(survivor, &status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_EQ(stamps.size(), 60u);
  // Its posts after the other's last: n went out over n - 1 messages' time,
  // two of which may have caught up on a late one: never faster than the
  // link.
  ASSERT_FALSE(dead.empty());
  const auto alone =
      std::upper_bound(stamps.begin(), stamps.end(), dead.back());
  const auto n = static_cast<uint64_t>(stamps.end() - alone);
  ASSERT_GE(n, 10u) << "the two processes did not overlap";
  EXPECT_LE(Gbits((n - 3) * kBytes, stamps.back() - *alone), 1.03);
}

}  // namespace
}  // namespace verbsemu::shim::internal
