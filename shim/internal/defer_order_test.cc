// CompletionOrder (defer_order.h): the completions of WRs handed over out of
// post order come out in post order, and nothing is held for ever.
#include "shim/internal/defer_order.h"

#include <gtest/gtest.h>

#include <cstdint>
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

std::vector<uint64_t> Out(SyntheticCompletions& out) {
  std::vector<uint64_t> ids;
  ibv_wc wc[16];
  const int n = out.Take(kCq, 16, wc);
  for (int i = 0; i < n; ++i) ids.push_back(wc[i].wr_id);
  return ids;
}

// Posts `n` WRs, one a post, every one signaled; returns the first's seq.
uint64_t PostSignaled(CompletionOrder& o, int n) {
  const uint32_t one = 1;
  const uint64_t first = o.Posted(&one, 1, 1);
  for (int i = 1; i < n; ++i) o.Posted(&one, 1, 1);
  return first;
}

void HandOver(CompletionOrder& o, uint64_t seq) {
  o.Offer(seq, 1);
  o.Took(1);
}

TEST(CompletionOrder, AWrThatPassedWaitsForTheOneItPassed) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  HandOver(o, 1);
  o.Polled(Wc(11));
  EXPECT_TRUE(Out(out).empty());
  HandOver(o, 0);
  o.Polled(Wc(10));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(o.Tracked(), 0u);
}

TEST(CompletionOrder, InOrderCompletionsGoAtOnce) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  HandOver(o, 0);
  HandOver(o, 1);
  o.Polled(Wc(10));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{10}));
  o.Polled(Wc(11));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{11}));
}

// A WR the provider did not take keeps no place: the next completion is
// matched to the WR handed over after it.
TEST(CompletionOrder, AWrNotTakenIsOfferedAgain) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  o.Offer(1, 1);
  o.Took(0);
  HandOver(o, 0);
  HandOver(o, 1);
  o.Polled(Wc(10));
  o.Polled(Wc(11));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{10, 11}));
}

// A WR the shim completed itself (refused, flushed) goes out in its place.
TEST(CompletionOrder, ASettledWrHoldsNothingBack) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  HandOver(o, 1);
  o.Polled(Wc(11));
  EXPECT_TRUE(Out(out).empty());
  const ibv_wc refused = Wc(10, IBV_WC_LOC_QP_OP_ERR);
  o.Completed(0, &refused);
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(o.Tracked(), 0u);
}

TEST(CompletionOrder, AnErrorReleasesEverythingHeldBeforeIt) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 3);
  HandOver(o, 1);
  HandOver(o, 2);
  o.Polled(Wc(11));
  o.Polled(Wc(12, IBV_WC_WR_FLUSH_ERR));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(o.Tracked(), 0u);
}

// An unsignaled WR completes with the next signaled one handed after it.
TEST(CompletionOrder, AnUnsignaledWrCompletesWithALaterSignaledOne) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  const uint32_t second = 2;
  o.Posted(&second, 1, 2);  // WR 0 unsignaled, WR 1 signaled
  o.Offer(0, 2);
  o.Took(2);
  o.Polled(Wc(11));
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{11}));
  EXPECT_EQ(o.Tracked(), 0u);
}

TEST(CompletionOrder, ADroppedWrHoldsNothingBack) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  HandOver(o, 1);
  o.Polled(Wc(11));
  o.Completed(0, nullptr);
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{11}));
}

TEST(CompletionOrder, ClearForgetsWhatTheProviderDropped) {
  SyntheticCompletions out;
  CompletionOrder o(kCq, &out);
  PostSignaled(o, 2);
  HandOver(o, 1);
  o.Clear();
  EXPECT_EQ(o.Tracked(), 0u);
  o.Polled(Wc(7));  // not one it knows: as it came
  EXPECT_EQ(Out(out), (std::vector<uint64_t>{7}));
}

}  // namespace
}  // namespace verbsemu::shim::internal
