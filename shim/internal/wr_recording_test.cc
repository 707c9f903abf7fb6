#include "shim/internal/wr_recording.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

// A provider that writes down each call with the wr_id and flags it saw.
std::vector<std::string> calls;

std::string Seen(const ibv_qp_ex* qpx) {
  return " id=" + std::to_string(qpx->wr_id) +
         " flags=" + std::to_string(qpx->wr_flags);
}
void Start(ibv_qp_ex* /*qpx*/) { calls.emplace_back("start"); }
int Complete(ibv_qp_ex* /*qpx*/) {
  calls.emplace_back("complete");
  return 7;
}
void Write(ibv_qp_ex* qpx, uint32_t rkey, uint64_t addr) {
  calls.push_back("write " + std::to_string(rkey) + " " + std::to_string(addr) +
                  Seen(qpx));
}
void CmpSwp(ibv_qp_ex* qpx, uint32_t rkey, uint64_t addr, uint64_t compare,
            uint64_t swap) {
  calls.push_back("cas " + std::to_string(rkey) + " " + std::to_string(addr) +
                  " " + std::to_string(compare) + " " + std::to_string(swap) +
                  Seen(qpx));
}
void SgeList(ibv_qp_ex* /*qpx*/, size_t n, const ibv_sge* sg) {
  std::string s = "sges";
  for (size_t i = 0; i < n; ++i) {
    s += " " + std::to_string(sg[i].addr) + "/" + std::to_string(sg[i].length);
  }
  calls.push_back(s);
}
void Inline(ibv_qp_ex* /*qpx*/, void* addr, size_t length) {
  calls.push_back("inline " + std::string(static_cast<char*>(addr), length));
}

QpExSlots Provider() {
  QpExSlots p;
  p.wr_start = Start;
  p.wr_complete = Complete;
  p.wr_rdma_write = Write;
  p.wr_atomic_cmp_swp = CmpSwp;
  p.wr_set_sge_list = SgeList;
  p.wr_set_inline_data = Inline;
  return p;
}

class WrRecordingTest : public ::testing::Test {
 protected:
  void SetUp() override { calls.clear(); }
  ibv_qp_ex qpx_{};
  QpExSlots provider_ = Provider();
};

TEST_F(WrRecordingTest, ReplaysCallsInOrderWithTheirWrIdAndFlags) {
  WrRecording r;
  r.Open(&qpx_, provider_, nullptr);
  qpx_.wr_id = 11;
  qpx_.wr_flags = IBV_SEND_SIGNALED;
  r.Add<&QpExSlots::wr_rdma_write>(&qpx_, uint32_t{5}, uint64_t{0x1000});
  qpx_.wr_id = 12;
  qpx_.wr_flags = 0;
  r.Add<&QpExSlots::wr_atomic_cmp_swp>(&qpx_, uint32_t{6}, uint64_t{8},
                                       uint64_t{1}, ~uint64_t{0});
  EXPECT_TRUE(calls.empty()) << "nothing reaches the provider before replay";
  qpx_.wr_id = 99;
  EXPECT_EQ(r.Replay(&qpx_), 7);
  const std::vector<std::string> want = {
      "start", "write 5 4096 id=11 flags=2",
      "cas 6 8 1 18446744073709551615 id=12 flags=0", "complete"};
  EXPECT_EQ(calls, want);
  EXPECT_EQ(qpx_.wr_id, 99U) << "the application's wr_id is put back";
  EXPECT_FALSE(r.open());
}

TEST_F(WrRecordingTest, KeptDataOutlivesTheApplicationsBuffers) {
  WrRecording r;
  r.Open(&qpx_, provider_, nullptr);
  {
    ibv_sge sges[2] = {{0x10, 64, 1}, {0x20, 128, 1}};
    r.Add<&QpExSlots::wr_set_sge_list>(&qpx_, size_t{2}, r.Keep(sges, 2));
    char text[] = "payload";
    r.Add<&QpExSlots::wr_set_inline_data>(
        &qpx_, static_cast<void*>(r.Keep(text, 7)), size_t{7});
    std::memset(sges, 0, sizeof sges);
    std::memset(text, 'x', sizeof text);
  }
  r.Replay(&qpx_);
  const std::vector<std::string> want = {"start", "sges 16/64 32/128",
                                         "inline payload", "complete"};
  EXPECT_EQ(calls, want);
}

TEST_F(WrRecordingTest, ManyLargeCopiesSpanArenaBlocksAndStayIntact) {
  WrRecording r;
  r.Open(&qpx_, provider_, nullptr);
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) {
    texts.emplace_back(5000 + 997 * i, static_cast<char>('a' + i % 26));
  }
  for (std::string& t : texts) {
    r.Add<&QpExSlots::wr_set_inline_data>(
        &qpx_, static_cast<void*>(r.Keep(t.data(), t.size())), t.size());
  }
  for (std::string& t : texts) t.assign(t.size(), '-');
  r.Replay(&qpx_);
  ASSERT_EQ(calls.size(), 42U);
  for (int i = 0; i < 40; ++i) {
    const std::string want =
        "inline " +
        std::string(5000 + 997 * i, static_cast<char>('a' + i % 26));
    EXPECT_EQ(calls[i + 1], want) << i;
  }
}

TEST_F(WrRecordingTest, ClosedRecordingStartsEmpty) {
  WrRecording r;
  r.Open(&qpx_, provider_, nullptr);
  r.shape.Begin(Flow::kOut);
  r.Add<&QpExSlots::wr_rdma_write>(&qpx_, uint32_t{1}, uint64_t{2});
  r.Close();
  r.Open(&qpx_, provider_, nullptr);
  EXPECT_EQ(r.shape.wrs, 0U);
  r.Replay(&qpx_);
  const std::vector<std::string> want = {"start", "complete"};
  EXPECT_EQ(calls, want);
}

TEST(WrRecordingsTest, OneOpenRecordingPerQpAndClosedOnesReused) {
  WrRecordings all;
  ibv_qp_ex a{}, b{};
  const QpExSlots provider = Provider();
  WrRecording* ra = all.Open(&a, provider, nullptr);
  WrRecording* rb = all.Open(&b, provider, nullptr);
  EXPECT_NE(ra, rb);
  EXPECT_EQ(all.Find(&a), ra);
  EXPECT_EQ(all.Find(&b), rb);
  EXPECT_EQ(all.Open(&a, provider, nullptr), ra) << "a batch started again";
  ra->Close();
  EXPECT_EQ(all.Find(&a), nullptr);
  ibv_qp_ex c{};
  EXPECT_EQ(all.Open(&c, provider, nullptr), ra);
}

}  // namespace
}  // namespace verbsemu::shim::internal
