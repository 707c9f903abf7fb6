// QP lifetime under the shim: state is forgotten before the provider
// destroys a QP and restored when it refuses; batch control always reaches
// the provider; opcodes without data are not scanned; churn stays bounded.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <string>

#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

using LifetimeTest = ShimTest;

TEST_F(LifetimeTest, StateIsForgottenBeforeTheProviderDestroysTheQp) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  bool known_during_destroy = true;
  d.on_destroy_qp = [&](ibv_qp* qp) {
    QpCounters c;
    known_during_destroy = GetQpCounters(qp, &c);
  };
  ASSERT_EQ(DestroyQp(r.qp), 0);
  EXPECT_FALSE(known_during_destroy);
  EXPECT_EQ(LiveQpCount(), 0u);
}

TEST_F(LifetimeTest, RefusedDestroyKeepsTheQpAndItsCounters) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  Chain ch(2, 10);
  ASSERT_EQ(Post(r.qp, ch), 0);
  d.fail_destroy_qp = true;
  EXPECT_EQ(DestroyQp(r.qp), EBUSY);
  EXPECT_EQ(LiveQpCount(), 1u);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(Counters(r.qp).wrs, 4u);
}

// A batch on a QP whose state is gone (here: while it is being destroyed)
// must still take and release the provider's send-queue lock.
TEST_F(LifetimeTest, BatchControlReachesTheProviderWithoutQpState) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, true);
  auto* fake = reinterpret_cast<FakeQp*>(r.qp);
  int complete_rc = -1;
  bool lock_free_after = false;
  d.on_destroy_qp = [&](ibv_qp*) {
    ibv_wr_start(r.qpx);
    ibv_wr_send(r.qpx);
    complete_rc = ibv_wr_complete(r.qpx);
    ibv_wr_start(r.qpx);
    ibv_wr_abort(r.qpx);
    lock_free_after = fake->sq_mu.try_lock();
    if (lock_free_after) fake->sq_mu.unlock();
  };
  ASSERT_EQ(DestroyQp(r.qp), 0);
  EXPECT_EQ(complete_rc, 0);
  EXPECT_TRUE(lock_free_after);
}

TEST_F(LifetimeTest, OpcodesWithoutDataAreNotScanned) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ibv_send_wr inv{}, bind{};
  inv.opcode = IBV_WR_LOCAL_INV;
  inv.num_sge = 7;  // left unset by the application: must not be read
  inv.sg_list = nullptr;
  inv.next = &bind;
  bind.opcode = IBV_WR_BIND_MW;
  bind.num_sge = 3;
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(ibv_post_send(r.qp, &inv, &bad), 0);
  const QpCounters c = Counters(r.qp);
  EXPECT_EQ(c.wrs, 2u);
  EXPECT_EQ(c.bytes, 0u);
}

TEST_F(LifetimeTest, ConnectionChurnKeepsStateAndReportBounded) {
  FakeDevice d("fake0");
  Res first = MakeQp(d, false);
  Chain ch(1, 100);
  for (int i = 0; i < 5000; ++i) {
    ibv_qp* qp = CreateRcQpBeside(first);
    ASSERT_NE(qp, nullptr);
    Connect(qp);
    ASSERT_EQ(Post(qp, ch), 0);
    ASSERT_EQ(DestroyQp(qp), 0);
  }
  EXPECT_EQ(LiveQpCount(), 1u);
  EXPECT_LE(RetainedQpStateCount(), 100u);  // the report keeps 64
  const std::string report = ReportText();
  EXPECT_NE(report.find("qps 5001, wrs 5000,"), std::string::npos) << report;
  EXPECT_LT(report.size(), 16u * 1024);
}

}  // namespace
}  // namespace verbsemu::shim::internal
