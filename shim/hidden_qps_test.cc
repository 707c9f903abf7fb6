// The validity check from the kernel (hidden_qps.h) over the fake device,
// with the kernel's list given by the test: a QP of this process the shim
// never saw is a WARNING in the report; other processes', the kernel's own,
// and QPs on devices left unemulated are not; a QP adopted after a look
// counts as seen; a list that cannot be read is said, never taken as clean.
#include "shim/internal/hidden_qps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class HiddenQpsTest : public ShimTest {
 protected:
  void TearDown() override {
    SetKernelQpSourceForTesting(nullptr);
    ShimTest::TearDown();
  }
  // The kernel lists exactly `qps` (device, qpn, pid).
  static void KernelLists(std::vector<KernelQp> qps) {
    SetKernelQpSourceForTesting([qps] {
      KernelQpList l;
      l.ok = true;
      l.qps = qps;
      return l;
    });
  }
  static uint32_t Me() { return static_cast<uint32_t>(getpid()); }
  // The report's lines, warnings apart.
  static std::string Report(std::vector<std::string>* warnings) {
    return ReportText(warnings);
  }
};

TEST_F(HiddenQpsTest, AQpOfThisProcessTheShimNeverSawIsAWarning) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  KernelLists({{"fake0", r.qp->qp_num, Me(), 2}, {"fake0", 0x777, Me(), 2}});
  CheckHiddenQpsNow();
  std::vector<std::string> warnings;
  Report(&warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("WARNING: fake0: 1 QP of this process that the "
                              "shim never saw (0x000777)",
                              0),
            0u)
      << warnings[0];
  EXPECT_TRUE(HaveHiddenQps());
}

TEST_F(HiddenQpsTest, OtherOwnersAndUnemulatedDevicesAreNotWarnedAbout) {
  Settings s;
  s.devices = {"fake0"};
  s.report = "stderr";
  Configure(s);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  KernelLists({{"fake0", r.qp->qp_num, Me(), 2},
               {"fake0", 1, 0, 0},             // the kernel's own QP1
               {"fake0", 0x500, Me() + 1, 2},  // another process's
               {"fake1", 0x600, Me(), 2}});    // a device left unemulated
  CheckHiddenQpsNow();
  std::vector<std::string> warnings;
  const std::string text = Report(&warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_NE(text.find("kernel QP check: every QP of this process on an "
                      "emulated device was seen by the shim (1 look)"),
            std::string::npos)
      << text;
}

// A QP made behind the shim on a context it patched is adopted at its
// first post: a look before that post is not a verdict.
TEST_F(HiddenQpsTest, AQpAdoptedAfterALookCountsAsSeen) {
  ConfigureLatency(1'000);
  FakeDevice d("fake0");
  Res seen = MakeQp(d, false);
  // Its context patched where the provider hands it its ops.
  FakeDevice::SetSetOpsHook(VerbsSetOps);
  Res hidden = MakeFakeQp(d, {.through_shim = false});
  FakeDevice::SetSetOpsHook(nullptr);
  ASSERT_NE(hidden.qp, nullptr);
  KernelLists({{"fake0", seen.qp->qp_num, Me(), 2},
               {"fake0", hidden.qp->qp_num, Me(), 2}});
  CheckHiddenQpsNow();  // not seen yet
  EXPECT_TRUE(HaveHiddenQps());
  Chain ch(1, 64);
  ASSERT_EQ(Post(hidden.qp, ch), 0);  // adopted: its context is patched
  std::vector<std::string> warnings;
  Report(&warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_FALSE(HaveHiddenQps());
}

// A QP destroyed while a look reads the kernel's list (which still holds
// it) is not taken for one the shim never saw.
TEST_F(HiddenQpsTest, AQpDestroyedDuringALookIsNotHidden) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  const uint32_t qpn = r.qp->qp_num;
  SetKernelQpSourceForTesting([&r, qpn] {
    KernelQpList l;
    l.ok = true;
    l.qps = {{"fake0", qpn, Me(), 2}};
    if (r.qp != nullptr) {
      EXPECT_EQ(DestroyQp(r.qp), 0);
    }
    r.qp = nullptr;
    return l;
  });
  CheckHiddenQpsNow();
  EXPECT_FALSE(HaveHiddenQps());
}

// Created and destroyed 10,000 times: what the check keeps stays small.
TEST_F(HiddenQpsTest, ChurnKeepsTheSeenSetBounded) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  for (int i = 0; i < 10'000; ++i) {
    ibv_qp* qp = CreateRcQpBeside(r);
    ASSERT_NE(qp, nullptr);
    ASSERT_EQ(DestroyQp(qp), 0);
  }
  EXPECT_LE(SeenQpCountForTesting(), 2u);
}

TEST_F(HiddenQpsTest, AListThatCannotBeReadIsSaidNotTakenAsClean) {
  FakeDevice d("fake0");
  MakeQp(d, false);
  SetKernelQpSourceForTesting([] {
    KernelQpList l;
    l.error = "RDMA netlink dump failed: Operation not permitted";
    return l;
  });
  CheckHiddenQpsNow();
  std::vector<std::string> warnings;
  const std::string text = Report(&warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_NE(text.find("kernel QP check: not done (RDMA netlink dump failed: "
                      "Operation not permitted): QPs behind the shim cannot "
                      "be ruled out"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace verbsemu::shim::internal
