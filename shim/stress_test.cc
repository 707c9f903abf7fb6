// Many threads under every knob: 8 threads, each with 4 QPs (half posting
// with ibv_post_send, half with ibv_wr_*), posting and polling while other
// QPs are created and destroyed. Every WR must reach the device exactly
// once and in order per QP (checked by sequence numbers in wr_id), and
// every signaled WR must complete. Run under TSan by tools/test.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "shim/internal/shim_fixture.h"
#include "shim/stress_knobs.h"

namespace verbsemu::shim::internal {
namespace {

constexpr int kThreads = 8;
constexpr int kQpsPerThread = 4;
constexpr uint64_t kWrsPerQp = 150;

// wr_id: thread, QP index and sequence number, so order can be checked.
uint64_t WrId(int thread, int qp, uint64_t seq) {
  return (static_cast<uint64_t>(thread) << 48) |
         (static_cast<uint64_t>(qp) << 40) | seq;
}

void PostOne(FakeQpEnv& e, bool wr_api, uint64_t wr_id) {
  ASSERT_EQ(PostSignaledWrite(e.qp, wr_api ? e.qpx : nullptr, wr_id), 0);
}

// One thread: its QPs post round-robin; it polls its CQs as it goes, and
// creates and destroys a scratch QP every few posts.
void Worker(FakeDevice& d, int t, std::vector<uint64_t>* completions) {
  std::vector<FakeQpEnv> qps;
  for (int q = 0; q < kQpsPerThread; ++q) {
    qps.push_back(MakeFakeQp(d, {.wr_api = q % 2 == 1}));
  }
  ibv_wc wc[16];
  for (uint64_t seq = 0; seq < kWrsPerQp; ++seq) {
    for (int q = 0; q < kQpsPerThread; ++q) {
      PostOne(qps[q], q % 2 == 1, WrId(t, q, seq));
      const int n = ibv_poll_cq(qps[q].cq, 16, wc);
      if (n > 0) (*completions)[q] += static_cast<uint64_t>(n);
    }
    if (seq % 16 == 0) {
      FakeQpEnv scratch = MakeFakeQp(d, {.wr_api = true});
      EXPECT_EQ(DestroyQp(scratch.qp), 0);
    }
  }
  for (int q = 0; q < kQpsPerThread; ++q) {
    for (int n; (n = ibv_poll_cq(qps[q].cq, 16, wc)) > 0;) {
      (*completions)[q] += static_cast<uint64_t>(n);
    }
  }
}

class StressTest : public ShimTest,
                   public ::testing::WithParamInterface<Knob> {};

TEST_P(StressTest, NoWrLostDuplicatedOrReordered) {
  Configure(GetParam().config);
  FakeDevice d("fake0");
  std::vector<std::vector<uint64_t>> completions(
      kThreads, std::vector<uint64_t>(kQpsPerThread, 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(Worker, std::ref(d), t, &completions[t]);
  }
  for (auto& th : threads) th.join();
  std::map<uint64_t, uint64_t> next;  // (thread, qp) -> expected sequence
  for (const PostRecord& r : d.Posts()) {
    if (r.qp->qp_type == IBV_QPT_UD) continue;  // padding
    const uint64_t key = r.wr_id >> 40, seq = r.wr_id & ((1ull << 40) - 1);
    ASSERT_EQ(seq, next[key]) << "thread/qp " << std::hex << key;
    ++next[key];
  }
  ASSERT_EQ(next.size(), static_cast<size_t>(kThreads * kQpsPerThread));
  EXPECT_EQ(d.calls_outside_batch.load(), 0u);
  for (const auto& [key, count] : next) EXPECT_EQ(count, kWrsPerQp) << key;
  if (GetParam().config.padding()) {
    EXPECT_GT(d.ud_datagrams.load(), 0u);
  }
  for (const auto& per_thread : completions) {
    for (uint64_t c : per_thread) EXPECT_EQ(c, kWrsPerQp);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKnob, StressTest, ::testing::ValuesIn(Knobs()),
                         [](const ::testing::TestParamInfo<Knob>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace verbsemu::shim::internal
