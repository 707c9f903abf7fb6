// Loopback runs of the engine (root and peer in two threads, out-of-band TCP
// setup on 127.0.0.1 or rdma_cm on the device's address). Needs an RDMA
// device: skips with the reason otherwise (rdma-core's find-or-skip).
#include "verbsbench/engine.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <cstdlib>
#include <sstream>
#include <thread>

namespace verbsbench {
namespace {

using nlohmann::json;

std::string FirstActiveDevice() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  std::string name;
  for (int i = 0; list && i < n && name.empty(); ++i) {
    ibv_context* ctx = ibv_open_device(list[i]);
    if (!ctx) continue;
    ibv_port_attr port{};
    if (ibv_query_port(ctx, 1, &port) == 0 && port.state == IBV_PORT_ACTIVE) {
      name = ibv_get_device_name(list[i]);
    }
    ibv_close_device(ctx);
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

  // Runs root and peer; returns the root's JSON.
  json RunPair(Options o, int peers = 1) {
    static uint16_t port = 23000;
    port = static_cast<uint16_t>(port + 2);
    o.port = port;
    o.cm = "tcp";
    o.ib_dev = device_;
    o.timeout_s = 60;
    const char* gid = std::getenv("VERBSEMU_VM_GID0");
    if (gid) o.gid_index = std::atoi(gid);
    json root;
    std::string root_error;
    std::ostringstream log;
    std::thread root_thread([&] {
      try {
        root = RunBenchmark(o, log);
      } catch (const std::exception& e) {
        root_error = e.what();
      }
    });
    std::vector<std::thread> peer_threads;
    std::vector<std::string> peer_errors(static_cast<size_t>(peers));
    for (int i = 0; i < peers; ++i) {
      peer_threads.emplace_back([&, i] {
        Options p = o;
        p.host = "127.0.0.1";
        p.peers = 1;
        p.p_values.clear();
        std::ostringstream plog;
        try {
          RunBenchmark(p, plog);
        } catch (const std::exception& e) {
          peer_errors[static_cast<size_t>(i)] = e.what();
        }
      });
    }
    for (auto& t : peer_threads) t.join();
    root_thread.join();
    EXPECT_EQ(root_error, "");
    for (const auto& e : peer_errors) EXPECT_EQ(e, "");
    return root;
  }

  std::string device_;
};

TEST_F(EngineLoopback, LatSendWriteRead) {
  Options o;
  o.mode = "lat";
  o.ops = {"send", "write", "read"};
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
  o.mode = "bw";
  o.ops = {"write"};
  o.sizes = {4096};
  o.iters = 1000;
  o.window = 32;
  o.post_list = 4;
  const json run = RunPair(o);
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_GT(run["results"][0]["bw_MiBps"].get<double>(), 0);
}

TEST_F(EngineLoopback, LopTwoPeers) {
  Options o;
  o.mode = "lop";
  o.peers = 2;
  o.ops = {"send"};
  o.inline_modes = {false};
  o.iters = 50;
  o.warmup = 5;
  o.yield = true;
  const json run = RunPair(o, 2);
  std::map<std::string, size_t> points;
  for (const json& c : run["lop"]["curves"])
    points[c["name"]] = c["points"].size();
  for (const char* name :
       {"rtt2_1n_send_normal", "rtt2_n1_send_normal", "os_send_single",
        "os_send_list", "or_recv_single", "or_recv_list", "L_1n_send_normal",
        "Llist_1n_send_normal"}) {
    EXPECT_EQ(points[name], 2u) << name;
  }
}

}  // namespace
}  // namespace verbsbench
