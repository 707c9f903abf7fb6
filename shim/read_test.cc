// RDMA READ and atomics under the shim: their completion needs a request out
// and a response back, so the initiator adds two one-way latencies; their
// data flows in, so both bandwidth modes pace it on the inbound direction
// (padding from this side could only fill the outbound one).
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>

#include "emulate/tsc.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

using ReadTest = ShimTest;

uint64_t DelayOf(FakeDevice& d, ibv_qp* qp, Chain& ch) {
  const uint64_t t0 = emulate::ReadTsc();
  EXPECT_EQ(Post(qp, ch), 0);
  return d.last_post_tsc.load() - t0 + ShimFixedCost();
}

TEST_F(ReadTest, ReadAndAtomicsAddTwoOneWayLatencies) {
  ConfigureLatency(10'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  const uint64_t one_way = Cal().NsToTicks(10'000);
  Chain read(1, 4096, IBV_WR_RDMA_READ), faa(1, 8, IBV_WR_ATOMIC_FETCH_AND_ADD),
      write(1, 4096, IBV_WR_RDMA_WRITE);
  EXPECT_GE(DelayOf(d, r.qp, read), 2 * one_way);
  EXPECT_GE(DelayOf(d, r.qp, faa), 2 * one_way);
  // A write is one way: well under two (the spin ends at its deadline).
  const uint64_t w = DelayOf(d, r.qp, write);
  EXPECT_GE(w, one_way);
  EXPECT_EQ(Counters(r.qp).wrs, 3u);
}

TEST_F(ReadTest, WrApiReadAddsTwoOneWayLatencies) {
  ConfigureLatency(10'000);
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  const uint64_t t0 = emulate::ReadTsc();
  ibv_wr_start(r.qpx);
  ibv_wr_rdma_read(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 4096);
  ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  EXPECT_GE(d.last_post_tsc.load() - t0 + ShimFixedCost(),
            2 * Cal().NsToTicks(10'000));
  EXPECT_EQ(Counters(r.qp).bytes, 4096u);
}

// Back-to-back 64 KiB reads at a 10 Gbit/s target on a far faster link:
// releases at least one message time apart, less the catch-up window.
void ExpectReadsPaced(FakeDevice& d, ibv_qp* qp) {
  const uint64_t gap = Cal().NsToTicks(65536 * 8 / 10.0);
  const uint64_t burst = std::max(Cal().NsToTicks(20'000), 2 * gap);
  Chain ch(1, 65536, IBV_WR_RDMA_READ);
  constexpr int kPosts = 12;
  uint64_t first = 0;
  for (int i = 0; i < kPosts; ++i) {
    ASSERT_EQ(Post(qp, ch), 0);
    if (i == 0) first = d.last_post_tsc.load();
  }
  EXPECT_GE(d.last_post_tsc.load() - first + burst, (kPosts - 1) * gap);
}

TEST_F(ReadTest, ReadsArePacedInPaceMode) {
  ConfigureBandwidth("10Gbit/s", 0, emulate::BwMode::kPace, 1e12);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ExpectReadsPaced(d, r.qp);
}

TEST_F(ReadTest, ReadsArePacedInPadModeAndNotPadded) {
  ConfigureBandwidth("10Gbit/s", 0, emulate::BwMode::kPad, 1e12);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ExpectReadsPaced(d, r.qp);
  EXPECT_EQ(d.ud_datagrams.load(), 0u);  // no padding: it would go the
                                         // wrong way
}

// Writes in pad mode keep their padding next to the inbound pacer.
TEST_F(ReadTest, WritesInPadModeArePadded) {
  ConfigureBandwidth("50%");
  FakeDevice d("fake0");
  QpAfterOnePost(d, 1 << 20);
  EXPECT_EQ(d.ud_datagrams.load(), 1024u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
