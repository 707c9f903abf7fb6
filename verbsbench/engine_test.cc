// Loopback runs of the engine (root and forked peers, out-of-band TCP
// setup on 127.0.0.1 or rdma_cm on the device's address). Needs an RDMA
// device: skips with the reason otherwise (rdma-core's find-or-skip).
#include "verbsbench/engine.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace verbsbench {
namespace {

using nlohmann::json;

// The first device whose port 1 is ACTIVE, read from sysfs (opening and
// closing a device here would leave the process with a second rxe context).
std::string FirstActiveDevice() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  std::string name;
  for (int i = 0; list && i < n && name.empty(); ++i) {
    std::ifstream state(std::string(list[i]->ibdev_path) + "/ports/1/state");
    std::string line;
    if (std::getline(state, line) && line.find("ACTIVE") != std::string::npos) {
      name = ibv_get_device_name(list[i]);
    }
  }
  if (list) ibv_free_device_list(list);
  return name;
}

class EngineLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = FirstActiveDevice();
    if (device_.empty())
      GTEST_SKIP() << "no active RDMA device (run in soft-roce/vm)";
  }

  // Runs root and peer; returns the root's JSON. With `root_error` the root
  // may fail: its message lands there (and the peers, left alone, fail too).
  json RunPair(Options o, int peers = 1, std::string* root_error = nullptr) {
    static uint16_t port = 23000;
    port = static_cast<uint16_t>(port + 2);
    o.port = port;
    o.cm = Cm::kTcp;
    o.ib_dev = device_;
    o.timeout_s = 60;
    const char* gid = std::getenv("VERBSEMU_VM_GID0");
    if (gid) o.gid_index = std::atoi(gid);
    // Peers are separate processes, as in real use (forked before the root
    // opens the device).
    std::vector<pid_t> children;
    for (int i = 0; i < peers; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        Options p = o;
        p.host = "127.0.0.1";
        p.peers = 1;
        p.p_values.clear();
        std::ostringstream plog;
        try {
          RunBenchmark(p, plog);
        } catch (const std::exception& e) {
          std::cerr << "peer " << i << ": " << e.what() << "\n";
          _exit(1);
        }
        _exit(0);
      }
      children.push_back(pid);
    }
    json root;
    std::ostringstream log;
    try {
      root = RunBenchmark(o, log);
    } catch (const std::exception& e) {
      if (root_error) {
        *root_error = e.what();
      } else {
        ADD_FAILURE() << "root: " << e.what();
      }
    }
    for (pid_t pid : children) {
      int status = 0;
      waitpid(pid, &status, 0);
      if (root_error) continue;
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "peer status " << status;
    }
    return root;
  }

  std::string device_;
};

TEST_F(EngineLoopback, LatSendWriteRead) {
  Options o;
  o.mode = Mode::kLat;
  o.ops = {Op::kSend, Op::kWrite, Op::kRead};
  o.sizes = {8, 4096};
  o.iters = 100;
  o.warmup = 10;
  const json run = RunPair(o);
  ASSERT_EQ(run["results"].size(), 6u);
  for (const json& r : run["results"]) {
    EXPECT_EQ(r["stats"]["count"], 100);
    EXPECT_GT(r["stats"]["min_ns"].get<double>(), 0);
    EXPECT_LE(r["stats"]["min_ns"].get<double>(),
              r["stats"]["p50_ns"].get<double>());
  }
  EXPECT_EQ(run["device"]["connection"], "tcp");
}

TEST_F(EngineLoopback, BwWithPostList) {
  Options o;
  o.mode = Mode::kBw;
  o.ops = {Op::kWrite};
  o.sizes = {4096};
  o.iters = 1000;
  o.window = 32;
  o.post_list = 4;
  const json run = RunPair(o);
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_GT(run["results"][0]["bw_MiBps"].get<double>(), 0);
}

// Both inline modes: the list-posted round (one UD QP, an address handle
// per peer) runs for each, with the peers sleeping on its recv CQ.
TEST_F(EngineLoopback, LopTwoPeers) {
  Options o;
  o.mode = Mode::kLop;
  o.peers = 2;
  o.ops = {Op::kSend};
  o.inline_modes = {true, false};
  o.iters = 50;
  o.warmup = 5;
  o.wait = Wait::kEvent;
  const json run = RunPair(o, 2);
  std::map<std::string, size_t> points;
  for (const json& c : run["lop"]["curves"])
    points[c["name"]] = c["points"].size();
  for (const char* name :
       {"round_1n_send_normal", "round_n1_send_normal", "rtt_1n_send_normal",
        "os_send_single", "os_send_list", "or_recv_single", "or_recv_list",
        "L_1n_send_normal", "round_1n_send_inline_list",
        "rtt_1n_send_inline_list", "Llist_1n_send_inline",
        "round_1n_send_normal_list", "Llist_1n_send_normal"}) {
    EXPECT_EQ(points[name], 2u) << name;
  }
  for (const json& c : run["lop"]["curves"]) {
    if (c["name"] != "round_1n_send_inline_list") continue;
    EXPECT_EQ(c["list"], true);
    EXPECT_EQ(c["kind"], "round");
    for (const json& pt : c["points"]) {
      EXPECT_EQ(pt["samples"], 50);
      EXPECT_GT(pt["min_ns"].get<double>(), 0);
    }
  }
}

// A UD message carries one MTU at most: a larger lop send is refused at
// setup with one line.
TEST_F(EngineLoopback, LopSendAboveTheMtuIsRefused) {
  Options o;
  o.mode = Mode::kLop;
  o.ops = {Op::kSend};
  o.sizes = {8192};  // above every IB MTU
  o.iters = 10;
  std::string error;
  RunPair(o, 1, &error);
  EXPECT_NE(error.find("8192 bytes exceed the path MTU of"), std::string::npos)
      << "root: '" << error << "'";
}

}  // namespace
}  // namespace verbsbench
