#include "shim/internal/port_traffic.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

TEST(JudgeTest, TrafficTheShimPostedOrAnsweredIsExplained) {
  TrafficWindow w;
  w.device_counters = true;
  w.shim_posted = 100'000;
  w.device = {.sent = 150'000, .received = 50'000};  // 50k ACKs
  EXPECT_FALSE(Judge(w).bypass);
  EXPECT_EQ(Judge(w).unexplained, 0u);
}

TEST(JudgeTest, RequestsNoShimProcessPostedAreABypass) {
  TrafficWindow w;
  w.device_counters = true;
  w.shim_posted = 1'000;
  w.device = {.sent = 60'000, .received = 4'000};
  const TrafficVerdict v = Judge(w);
  EXPECT_TRUE(v.bypass);
  EXPECT_EQ(v.unexplained, 55'000u);
}

TEST(JudgeTest, SmallExcessIsTolerated) {
  TrafficWindow w;
  w.device_counters = true;
  w.device = {.sent = kUnexplainedFloor, .received = 0};
  EXPECT_FALSE(Judge(w).bypass);
  w.device.sent = 1'000'000;
  w.shim_posted = 1'000'000 - 19'000;  // 1.9% of what was sent
  EXPECT_FALSE(Judge(w).bypass);
  w.shim_posted = 1'000'000 - 21'000;
  EXPECT_TRUE(Judge(w).bypass);
}

TEST(JudgeTest, ReadResponsesAreNotCalledABypass) {
  TrafficWindow w;
  w.device_counters = true;
  w.serves_reads = true;
  w.device = {.sent = 160'000, .received = 10'000};  // 16-packet responses
  const TrafficVerdict v = Judge(w);
  EXPECT_FALSE(v.bypass);
  EXPECT_TRUE(v.maybe_read_responses);
}

TEST(JudgeTest, NoDeviceCountersNoVerdict) {
  TrafficWindow w;
  w.device = {.sent = 1'000'000, .received = 0};
  EXPECT_FALSE(Judge(w).bypass);
}

// A fake sysfs tree and a shared-memory prefix of the test's own.
class PortTrafficTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
            ("sysfs-" + std::to_string(getpid()));
    fs::create_directories(root_);
    paths_.sysfs_root = root_.string();
    // Unique even where pids repeat (Bazel's PID namespaces, with parallel
    // runs of this test sharing /dev/shm).
    paths_.shm_prefix =
        "/verbsemu-test-" + std::to_string(getpid()) + "-" +
        std::to_string(std::random_device{}()) + "-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    shm_unlink(SegmentName(paths_, "dev0", 1).c_str());
    fs::remove_all(root_);
  }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void SetRxe(uint64_t sent, uint64_t received) {
    Write("dev0/ports/1/hw_counters/sent_pkts", std::to_string(sent) + "\n");
    Write("dev0/ports/1/hw_counters/rcvd_pkts",
          std::to_string(received) + "\n");
  }
  std::unique_ptr<PortTraffic> Start() {
    std::string why;
    auto t = PortTraffic::Start(paths_, "dev0", 1, &why);
    EXPECT_NE(t, nullptr) << why;
    return t;
  }

  fs::path root_;
  TrafficPaths paths_;
};

TEST_F(PortTrafficTest, ReadsIbCountersFirstThenRxe) {
  SetRxe(10, 20);
  EXPECT_EQ(ReadDevicePackets(paths_.sysfs_root, "dev0", 1)->sent, 10u);
  Write("dev0/ports/1/counters/port_xmit_packets", "7\n");
  Write("dev0/ports/1/counters/port_rcv_packets", "8\n");
  const auto p = ReadDevicePackets(paths_.sysfs_root, "dev0", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->sent, 7u);
  EXPECT_EQ(p->received, 8u);
  Write("dev0/ports/2/hw_counters/sent_pkts", "not a number\n");
  Write("dev0/ports/2/hw_counters/rcvd_pkts", "1\n");
  EXPECT_FALSE(ReadDevicePackets(paths_.sysfs_root, "dev0", 2));
  EXPECT_FALSE(ReadDevicePackets(paths_.sysfs_root, "dev9", 1));
  // Older kernels: rxe's counters per device.
  Write("dev3/ports/1/.keep", "");
  Write("dev3/hw_counters/sent_pkts", "5\n");
  Write("dev3/hw_counters/rcvd_pkts", "6\n");
  EXPECT_EQ(ReadDevicePackets(paths_.sysfs_root, "dev3", 1)->received, 6u);
  EXPECT_EQ(DevicePorts(paths_.sysfs_root, "dev0"), (std::vector<int>{1, 2}));
}

// EFA: no counters/ directory; the port's hw_counters say tx_pkts, rx_pkts.
TEST_F(PortTrafficTest, ReadsEfaCounters) {
  Write("efa_0/ports/1/hw_counters/tx_pkts", "11\n");
  Write("efa_0/ports/1/hw_counters/rx_pkts", "12\n");
  Write("efa_0/ports/1/hw_counters/tx_bytes", "9999\n");
  const auto p = ReadDevicePackets(paths_.sysfs_root, "efa_0", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->sent, 11u);
  EXPECT_EQ(p->received, 12u);
}

TEST_F(PortTrafficTest, WindowCountsEveryProcessOfTheNode) {
  SetRxe(1'000, 500);
  auto mine = Start();
  auto other = Start();  // another process: the same segment
  SetRxe(1'000 + 80'000, 500 + 2'000);
  mine->shared()->posted_packets.fetch_add(30'000);
  EXPECT_NE(mine->ReportLine().find("device dev0 port 1: 48000 packets sent "
                                    "that no shim process posted"),
            std::string::npos)
      << mine->ReportLine();
  other->shared()->posted_packets.fetch_add(48'000);
  const std::string line = mine->ReportLine();
  EXPECT_EQ(line.find("that no shim process posted"), std::string::npos)
      << line;
  EXPECT_NE(line.find("sent 80000 packets and received 2000"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("posted at most 78000"), std::string::npos) << line;
}

TEST_F(PortTrafficTest, AQpServingReadsTurnsTheVerdictIntoANote) {
  SetRxe(0, 0);
  auto t = Start();
  t->ServeReads(true);
  t->ServeReads(false);  // served during the window, gone at its end
  SetRxe(100'000, 1'000);
  const std::string line = t->ReportLine();
  EXPECT_EQ(line.find("that no shim process posted"), std::string::npos);
  EXPECT_NE(line.find("responses to remote READs"), std::string::npos);
}

TEST_F(PortTrafficTest, AReadServerThatCrashedLeavesNoCountBehind) {
  SetRxe(0, 0);
  {
    // A process that served READs and died without retiring its QP.
    auto crashed = Start();
    crashed->ServeReads(true);
  }
  auto t = Start();  // a later process's window
  SetRxe(100'000, 1'000);
  EXPECT_FALSE(t->Window().serves_reads);
  EXPECT_NE(t->ReportLine().find("that no shim process posted"),
            std::string::npos);
}

TEST_F(PortTrafficTest, ARestartedWindowStartsFromNow) {
  SetRxe(0, 0);
  auto t = Start();
  SetRxe(100'000, 0);
  t->Restart();
  EXPECT_EQ(t->ReportLine().find("that no shim process posted"),
            std::string::npos);
  EXPECT_EQ(t->Window().device.sent, 0u);
}

TEST_F(PortTrafficTest, WithoutDeviceCountersTheLineSaysSo) {
  auto t = Start();
  EXPECT_NE(t->ReportLine().find("no device packet counters"),
            std::string::npos);
}

TEST_F(PortTrafficTest, WithAShmDirTheCountsAreAFileThere) {
  paths_.shm_dir = root_.string();
  auto t = Start();
  ASSERT_NE(t, nullptr);
  t->shared()->posted_packets.fetch_add(5);
  const std::string file = root_.string() + SegmentName(paths_, "dev0", 1);
  EXPECT_TRUE(fs::is_regular_file(file)) << file;
  EXPECT_EQ(fs::status(file).permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Start()->shared()->posted_packets.load(), 5u);
}

TEST_F(PortTrafficTest, AnUnusableSegmentNameIsAReasonNotACrash) {
  paths_.shm_prefix = "/no/such/dir";
  std::string why;
  EXPECT_EQ(PortTraffic::Start(paths_, "dev0", 1, &why), nullptr);
  EXPECT_NE(why.find("shm_open"), std::string::npos) << why;
}

}  // namespace
}  // namespace verbsemu::shim::internal
