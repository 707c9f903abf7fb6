// The bypass check on the fake device: what the shim posts is published for
// the node, the report compares it with the device's own counters (a fake
// sysfs tree the test writes as the device would count), and warns once
// when the device carried requests no shim process posted.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

class BypassTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
            ("bypass-sysfs-" + std::to_string(getpid()));
    fs::create_directories(root_);
    paths_.sysfs_root = root_.string();
    paths_.shm_prefix = TestShmPrefix();
    SetDeviceCounters(1'000, 1'000);
    SetTrafficPathsForTesting(paths_);
  }
  void TearDown() override {
    ShimTest::TearDown();
    shm_unlink(SegmentName(paths_, "fake0", 1).c_str());
    fs::remove_all(root_);
  }
  // rxe's hw_counters of fake0 port 1, as the device would show them.
  void SetDeviceCounters(uint64_t sent, uint64_t received) {
    const fs::path dir = root_ / "fake0/ports/1/hw_counters";
    fs::create_directories(dir);
    std::ofstream(dir / "sent_pkts") << sent << "\n";
    std::ofstream(dir / "rcvd_pkts") << received << "\n";
  }
  static std::vector<std::string> Warnings(std::string* text = nullptr) {
    std::vector<std::string> warnings;
    const std::string t = ReportText(&warnings);
    if (text != nullptr) *text = t;
    return warnings;
  }
  // `n` RDMA writes of 64 KiB (64 packets each at the fake QP's 1 KiB MTU).
  static void PostWrites(ibv_qp* qp, int n) {
    Chain ch(1, 64 * 1024, IBV_WR_RDMA_WRITE);
    for (int i = 0; i < n; ++i) ASSERT_EQ(Post(qp, ch), 0);
  }

  fs::path root_;
  TrafficPaths paths_;
};

TEST_F(BypassTest, WhatTheShimPostedIsExplained) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  PostWrites(r.qp, 1'000);
  // 64,000 request packets out, one ACK back for each write.
  SetDeviceCounters(1'000 + 64'000, 1'000 + 1'000);
  std::string text;
  EXPECT_TRUE(Warnings(&text).empty()) << text;
  EXPECT_NE(text.find("device fake0 port 1: the device sent 64000 packets "
                      "and received 1000"),
            std::string::npos)
      << text;
}

// Counted, and a note only: the port is shared, so other processes'
// traffic must not make the run invalid.
TEST_F(BypassTest, RequestsTheShimNeverSawAreCountedNotWarned) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  PostWrites(r.qp, 100);
  // Beside the shim's 6,400 packets, 50,000 that some other path posted.
  SetDeviceCounters(1'000 + 6'400 + 50'000, 1'000 + 100 + 800);
  std::string text;
  EXPECT_TRUE(Warnings(&text).empty()) << text;
  EXPECT_NE(text.find("device fake0 port 1: 48993 packets sent that no shim "
                      "process posted"),
            std::string::npos)
      << text;
}

TEST_F(BypassTest, AReportFileCarriesTheCountsAndNamesItsProcess) {
  Settings s;
  s.engine.latency_ns = 1'000;
  s.report = (root_ / "report.%h.%p.txt").string();
  ShimTest::Configure(s);
  SetTrafficPathsForTesting(paths_);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  PostWrites(r.qp, 100);
  SetDeviceCounters(1'000 + 6'400 + 50'000, 1'000 + 100 + 800);
  WriteReport();
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const fs::path file = root_ / ("report." + std::string(host) + "." +
                                 std::to_string(getpid()) + ".txt");
  std::ifstream in(file);
  ASSERT_TRUE(in) << file << " was not written";
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("verbsemu report (pid " + std::to_string(getpid())),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ndevice fake0 port 1: 48993 packets sent that no "
                      "shim process posted"),
            std::string::npos)
      << text;
}

// Both providers: mlx5 installs its real wr_complete only at RTS, after the
// shim first wrapped the slots.
class BypassWrApiTest : public BypassTest,
                        public ::testing::WithParamInterface<Personality> {};

TEST_P(BypassWrApiTest, WrApiPostsArePublishedToo) {
  FakeDevice d("fake0");
  d.personality = GetParam();
  Res r = MakeQp(d, true);
  for (int i = 0; i < 1'000; ++i) {
    ibv_wr_start(r.qpx);
    r.qpx->wr_id = static_cast<uint64_t>(i);
    ibv_wr_rdma_write(r.qpx, 0, 0);
    ibv_wr_set_sge(r.qpx, 0, 0, 64 * 1024);
    ASSERT_EQ(ibv_wr_complete(r.qpx), 0);
  }
  SetDeviceCounters(1'000 + 64'000, 1'000 + 1'000);
  std::string text;
  EXPECT_TRUE(Warnings(&text).empty()) << text;
  EXPECT_EQ(d.complete_errors.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Providers, BypassWrApiTest,
                         ::testing::Values(Personality::kPlain,
                                           Personality::kMlx5));

TEST_F(BypassTest, AQpThatServesReadsMakesTheExcessANote) {
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  ibv_qp_attr a{};
  a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
  ASSERT_EQ(ModifyQp(r.qp, &a, IBV_QP_ACCESS_FLAGS), 0);
  // 1,000 READs of 64 KiB answered: 64,000 response packets.
  SetDeviceCounters(1'000 + 64'000, 1'000 + 1'000);
  std::string text;
  EXPECT_TRUE(Warnings(&text).empty()) << text;
  EXPECT_NE(text.find("responses to remote READs"), std::string::npos) << text;
}

TEST_F(BypassTest, NoReportNoSharedSegment) {
  emulate::Config c;
  c.latency_ns = 1'000;
  Settings s;
  s.engine = c;  // no report
  ShimTest::Configure(s);
  SetTrafficPathsForTesting(paths_);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  PostWrites(r.qp, 10);
  const std::string name = SegmentName(paths_, "fake0", 1);
  const int fd = shm_open(name.c_str(), O_RDONLY, 0);
  EXPECT_LT(fd, 0) << name << " exists";
  if (fd >= 0) close(fd);
}

// VERBSEMU_SHM_DIR and VERBSEMU_JOB through the engine: the port's link and
// its packet counts are files in that directory, named for the job, and
// nothing is made in /dev/shm.
TEST_F(BypassTest, SharedSegmentsAreFilesInTheShmDirWhenSet) {
  Settings s;
  s.engine.bandwidth = *emulate::ParseBandwidth("10Gbit/s");
  s.engine.bw_mode = emulate::BwMode::kPace;
  s.engine.link_bits_per_s = 100e9;
  s.report = "stderr";
  s.shm_dir = (root_ / "shm").string();
  s.job = "job7";
  fs::create_directories(s.shm_dir);
  ShimTest::Configure(s);
  FakeDevice d("fake0");
  Res r = MakeQp(d, false);
  PostWrites(r.qp, 10);
  TrafficPaths named = paths_;
  named.job = "job7";
  for (const std::string& name :
       {SegmentName(named, "fake0", 1), LinkSegmentName(named, "fake0", 1)}) {
    EXPECT_NE(name.find("-jjob7-fake0-p1"), std::string::npos) << name;
    struct stat st;
    ASSERT_EQ(stat((s.shm_dir + name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << name;
    EXPECT_NE(stat(("/dev/shm" + name).c_str(), &st), 0) << name;
  }
  EXPECT_TRUE(Warnings().empty());
}

}  // namespace
}  // namespace verbsemu::shim::internal
