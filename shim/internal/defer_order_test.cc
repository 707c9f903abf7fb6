// CompletionOrder (defer_order.h): the completions of WRs handed over out of
// post order come out in post order, and nothing is held for ever.
#include "shim/internal/defer_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "shim/internal/defer_synth.h"

namespace verbsemu::shim::internal {
namespace {

const ibv_cq* const kCq = nullptr;

ibv_wc Wc(uint64_t wr_id, ibv_wc_status status = IBV_WC_SUCCESS) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.status = status;
  wc.opcode = IBV_WC_SEND;
  return wc;
}

// One QP's order, its completions going to `out_`.
class CompletionOrderTest : public ::testing::Test {
 protected:
  // What went out since the last look, wr_ids in order.
  std::vector<uint64_t> Out() {
    std::vector<uint64_t> ids;
    ibv_wc wc[16];
    const int n = out_.Take(kCq, 16, wc);
    for (int i = 0; i < n; ++i) ids.push_back(wc[i].wr_id);
    return ids;
  }
  // Posts `n` WRs, one a post, every one signaled.
  void PostSignaled(int n) {
    const uint32_t one = 1;
    for (int i = 0; i < n; ++i) o_.Posted(&one, 1, 1);
  }
  // WRs `seqs`, each handed over whole, in that order.
  void HandOver(std::initializer_list<uint64_t> seqs) {
    for (const uint64_t seq : seqs) {
      o_.Offer(seq, 1);
      o_.Took(1);
    }
  }
  SyntheticCompletions out_;
  CompletionOrder o_{kCq, &out_};
};

TEST_F(CompletionOrderTest, AWrThatPassedWaitsForTheOneItPassed) {
  PostSignaled(2);
  HandOver({1});
  o_.Polled(Wc(11));
  EXPECT_TRUE(Out().empty());
  HandOver({0});
  o_.Polled(Wc(10));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(o_.Tracked(), 0u);
}

TEST_F(CompletionOrderTest, InOrderCompletionsGoAtOnce) {
  PostSignaled(2);
  HandOver({0, 1});
  o_.Polled(Wc(10));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{10}));
  o_.Polled(Wc(11));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{11}));
}

// A WR the provider did not take keeps no place: the next completion is
// matched to the WR handed over after it.
TEST_F(CompletionOrderTest, AWrNotTakenIsOfferedAgain) {
  PostSignaled(2);
  o_.Offer(1, 1);
  o_.Took(0);
  HandOver({0, 1});
  o_.Polled(Wc(10));
  o_.Polled(Wc(11));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{10, 11}));
}

// A WR the shim completed itself (refused, flushed) goes out in its place;
// one it dropped holds nothing back.
TEST_F(CompletionOrderTest, WrsTheShimCompletedGoOutInTheirPlace) {
  PostSignaled(3);
  HandOver({2});
  o_.Polled(Wc(12));
  const ibv_wc refused = Wc(10, IBV_WC_LOC_QP_OP_ERR);
  o_.Completed(0, &refused);
  EXPECT_EQ(Out(), (std::vector<uint64_t>{10}));
  o_.Completed(1, nullptr);
  EXPECT_EQ(Out(), (std::vector<uint64_t>{12}));
  EXPECT_EQ(o_.Tracked(), 0u);
}

TEST_F(CompletionOrderTest, AnErrorReleasesEverythingHeldBeforeIt) {
  PostSignaled(3);
  HandOver({1, 2});
  o_.Polled(Wc(11));
  o_.Polled(Wc(12, IBV_WC_WR_FLUSH_ERR));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(o_.Tracked(), 0u);
}

// An unsignaled WR completes with the next signaled one handed after it.
TEST_F(CompletionOrderTest, AnUnsignaledWrCompletesWithALaterSignaledOne) {
  const uint32_t second = 2;
  o_.Posted(&second, 1, 2);  // WR 0 unsignaled, WR 1 signaled
  o_.Offer(0, 2);
  o_.Took(2);
  o_.Polled(Wc(11));
  EXPECT_EQ(Out(), (std::vector<uint64_t>{11}));
  EXPECT_EQ(o_.Tracked(), 0u);
}

TEST_F(CompletionOrderTest, ClearForgetsWhatTheProviderDropped) {
  PostSignaled(2);
  HandOver({1});
  o_.Clear();
  EXPECT_EQ(o_.Tracked(), 0u);
  o_.Polled(Wc(7));  // not one it knows: as it came
  EXPECT_EQ(Out(), (std::vector<uint64_t>{7}));
}

}  // namespace
}  // namespace verbsemu::shim::internal
