// The C boundary under faults the shim must survive (faults.h injects
// them): a TSC calibration that fails, a thread that cannot be started (and
// a real one, an address space too small for its stack, in a child), memory
// that runs out while registering an object or holding a post. Each leaves the
// application's call working: pass-through for the object or the process,
// ENOMEM for a post the shim could not hold.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
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

// Lets the address space grow by `bytes` from what it maps now.
bool LimitAddressSpaceGrowth(size_t bytes) {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return false;
  unsigned long pages = 0;
  const bool read = std::fscanf(f, "%lu", &pages) == 1;
  std::fclose(f);
  if (!read) return false;
  const rlim_t limit =
      pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + bytes;
  const rlimit as{limit, limit};
  return setrlimit(RLIMIT_AS, &as) == 0;
}

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

// The same under a real limit, no injection: a child whose address space
// may grow by 4 MiB, less than a thread's stack, so std::thread throws
// inside ibv_create_qp and the shim catches it (RLIMIT_NPROC would spare
// root). Exit 0: the post was spun to the device and the report says so.
TEST_F(BoundaryTest, ARealThreadLimitMeansTheDeferQpSpins) {
  ConfigureDefer(100e3);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Chain ch(1, 64);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    if (!LimitAddressSpaceGrowth(4 << 20)) _exit(3);
    Res r = MakeQp(d, false);
    if (Post(r.qp, ch) != 0) _exit(4);
    if (d.post_calls.load() != 1) _exit(5);  // held, not spun
    if (ReportText().find("no progress thread") == std::string::npos) _exit(6);
    _exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "3: no limit set, 4: the post failed, 5: it was held, 6: the "
         "report does not say why";
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
