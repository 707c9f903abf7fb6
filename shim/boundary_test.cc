// The C boundary under faults the shim must survive (faults.h injects
// them): a TSC calibration that fails, a thread that cannot be started (and
// a real thread limit, RLIMIT_NPROC in a child), memory that runs out while
// registering an object or holding a post. Each leaves the application's
// call working: pass-through for the object or the process, ENOMEM for a
// post the shim could not hold.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "emulate/config.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/faults.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class BoundaryTest : public ShimTest {
 protected:
  void TearDown() override {
    for (Fault f :
         {Fault::kThreadStart, Fault::kCalibration, Fault::kOutOfMemory}) {
      InjectFaultForTesting(f, false);
    }
    ShimTest::TearDown();
  }
};

// Declared after a test's FakeDevice: the engine lets go of it first.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

TEST_F(BoundaryTest, FailedCalibrationMeansPassThroughNotAnException) {
  // The engine's own Configure: the TSC is calibrated at the first open.
  Settings s;
  s.engine.latency_ns = 1e6;
  s.report = "stderr";
  internal::Configure(s, "");
  InjectFaultForTesting(Fault::kCalibration, true);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  ibv_context* ctx = OpenDevice(d.device());
  ASSERT_NE(ctx, nullptr);
  EXPECT_FALSE(IsContextPatched(ctx));
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.post_calls.load(), 1u);
  QpCounters c;
  EXPECT_FALSE(GetQpCounters(r.qp, &c)) << "the QP was emulated";
}

TEST_F(BoundaryTest, NoProgressThreadMeansTheDeferQpSpins) {
  InjectFaultForTesting(Fault::kThreadStart, true);
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  // Spun, not held: the post reached the device before returning.
  EXPECT_EQ(d.post_calls.load(), 1u);
  EXPECT_NE(ReportText().find("no progress thread"), std::string::npos);
}

TEST_F(BoundaryTest, OutOfMemoryHoldingAPostIsEnomem) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(2, 64);
  InjectFaultForTesting(Fault::kOutOfMemory, true);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(r.qp, ch.head(), &bad), ENOMEM);
  EXPECT_EQ(bad, ch.head());
  InjectFaultForTesting(Fault::kOutOfMemory, false);
  ASSERT_EQ(Post(r.qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 2, std::chrono::seconds(5)));
  EXPECT_EQ(d.Posts().size(), 2u) << "the refused post reached the device";
}

TEST_F(BoundaryTest, OutOfMemoryHoldingABatchIsEnomem) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, true);
  InjectFaultForTesting(Fault::kOutOfMemory, true);
  ibv_wr_start(r.qpx);
  r.qpx->wr_id = 7;
  ibv_wr_rdma_write(r.qpx, 1, 0x2000);
  ibv_wr_set_sge(r.qpx, 1, 0x1000, 64);
  EXPECT_EQ(ibv_wr_complete(r.qpx), ENOMEM);
  InjectFaultForTesting(Fault::kOutOfMemory, false);
  EXPECT_EQ(d.Posts().size(), 0u);
}

TEST_F(BoundaryTest, OutOfMemoryRegisteringLeavesObjectsUnemulated) {
  ConfigureLatency(1e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  InjectFaultForTesting(Fault::kOutOfMemory, true);
  ibv_context* ctx = OpenDevice(d.device());
  ASSERT_NE(ctx, nullptr);
  EXPECT_FALSE(IsContextPatched(ctx));
  InjectFaultForTesting(Fault::kOutOfMemory, false);
  FakeDevice d2("fake1");
  Res r = MakeQp(d2, false);
  InjectFaultForTesting(Fault::kOutOfMemory, true);
  ibv_qp* other = CreateRcQpBeside(r);
  ASSERT_NE(other, nullptr);
  QpCounters c;
  EXPECT_FALSE(GetQpCounters(other, &c)) << "registered despite the fault";
  EXPECT_EQ(DestroyQp(other), 0);
}

}  // namespace
}  // namespace verbsemu::shim::internal
