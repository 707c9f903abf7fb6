// The fixture of the shim's fake-device tests: a fresh engine per test over
// the fake device's RealVerbs, helpers to configure, make QPs and post.
#ifndef VERBSEMU_SHIM_INTERNAL_SHIM_FIXTURE_H_
#define VERBSEMU_SHIM_INTERNAL_SHIM_FIXTURE_H_

#include <dirent.h>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

inline const emulate::TscCalibration& Cal() {
  static const emulate::TscCalibration cal = emulate::CalibrateTsc(2'000'000);
  return cal;
}

// What the configured shim takes off every delay: the fixed cost its own
// dithered spin measured when it was configured (CalibrateSpin), which a
// wait may end short of its target by. Not Cal()'s, measured without the
// dither.
inline uint64_t ShimFixedCost() { return E().cal.spin_fixed_cost_ticks; }

class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
    // The fake calls libibverbs' private entry points as providers do, so
    // the shim's hooks run inside its device calls, as they do on rxe. Its
    // verbs_set_ops stays direct here (tests open native baselines through
    // the fake alone); PrivatePathTest hands it to the shim too.
    FakeDevice::SetUninitHook(VerbsUninitContext);
    FakeDevice::SetCmdDestroyQpHook(CmdDestroyQp);
    ResetForTesting();
    // Shared segments (the bypass check's counts, a port's shared link) get
    // names of this test's own: test binaries run side by side, and two of
    // them pacing on "fake0" must not share one link.
    TrafficPaths paths;
    paths.shm_prefix = TestShmPrefix();
    SetTrafficPathsForTesting(paths);
    Configure(emulate::Config{});
  }
  void TearDown() override {
    ResetForTesting();
    FakeDevice::SetUninitHook(nullptr);
    FakeDevice::SetSetOpsHook(nullptr);
    FakeDevice::SetCmdDestroyQpHook(nullptr);
    RemoveSharedSegments(TestShmPrefix());
  }

  // Unique to this process even where pids repeat: Bazel's sandbox gives
  // each test its own PID namespace, and parallel runs of one test (with
  // --runs_per_test) share /dev/shm.
  static std::string TestShmPrefix() {
    static const std::string process =
        std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
    std::string name =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    return "/verbsemu-test-" + process + "-" + name;
  }
  // shm_unlink of every object whose name starts with `prefix`.
  static void RemoveSharedSegments(const std::string& prefix) {
    DIR* d = opendir("/dev/shm");
    if (d == nullptr) return;
    std::vector<std::string> names;
    while (const dirent* ent = readdir(d)) {
      const std::string n = std::string("/") + ent->d_name;
      if (n.rfind(prefix, 0) == 0) names.push_back(n);
    }
    closedir(d);
    for (const std::string& n : names) shm_unlink(n.c_str());
  }

  void Configure(const Settings& s) { ConfigureWithCalibration(s, Cal()); }
  // The engine's settings, with a report destination so that everything
  // is wrapped and counted (nothing writes the report unless a test asks).
  void Configure(const emulate::Config& c) {
    Settings s;
    s.engine = c;
    s.report = "stderr";
    Configure(s);
  }

  ibv_context* Open(FakeDevice& d) {
    ibv_context* ctx = OpenDevice(d.device());
    EXPECT_NE(ctx, nullptr);
    return ctx;
  }

  using Res = FakeQpEnv;

  Res MakeQp(FakeDevice& d, bool wr_api, bool connect = true) {
    Res r = MakeFakeQp(d, {.wr_api = wr_api, .connect = connect});
    EXPECT_NE(r.qp, nullptr);
    return r;
  }

  static void Connect(ibv_qp* qp) { ASSERT_TRUE(ConnectFakeQp(qp)); }

  // A connected QP that has posted one WR of `bytes` with ibv_post_send.
  Res QpAfterOnePost(FakeDevice& d, uint32_t bytes);

  // Another RC QP on `r`'s PD and CQ, through the exported ibv_create_qp.
  static ibv_qp* CreateRcQpBeside(const Res& r) {
    ibv_qp_init_attr init{};
    init.send_cq = r.cq;
    init.recv_cq = r.cq;
    init.qp_type = IBV_QPT_RC;
    return CreateQp(r.pd, &init);
  }

  // Latency and nothing else, no report: the lean wrappers (Wrapping::For).
  void ConfigureLatencyAlone(double ns) {
    Settings s;
    s.engine.latency_ns = ns;
    Configure(s);
  }
  void ConfigureLatency(double ns) {
    emulate::Config c;
    c.latency_ns = ns;
    Configure(c);
  }
  void ConfigureBandwidth(
      const char* target, double latency_ns = 0,
      emulate::BwMode mode = emulate::BwMode::kPad, double link_bits_per_s = 0,
      emulate::LatencyMode latency_mode = emulate::LatencyMode::kSpin) {
    emulate::Config c;
    c.bandwidth = *emulate::ParseBandwidth(target);
    c.latency_ns = latency_ns;
    c.bw_mode = mode;
    c.link_bits_per_s = link_bits_per_s;
    c.latency_mode = latency_mode;
    Configure(c);
  }

  // Latency, deferred (the report's counting on too).
  void ConfigureDefer(double latency_ns) {
    emulate::Config c;
    c.latency_ns = latency_ns;
    c.latency_mode = emulate::LatencyMode::kDefer;
    Configure(c);
  }
  // Polls `cq` (handing over what is due) until the device has recorded
  // `posts` WRs or `limit` passes; false on the limit (a wedged QP fails
  // here instead of hanging the test).
  static bool PollUntilPosts(FakeDevice& d, ibv_cq* cq, uint64_t posts,
                             std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    ibv_wc wc[8];
    while (d.Posts().size() < posts) {
      ibv_poll_cq(cq, 8, wc);
      if (std::chrono::steady_clock::now() > end) return false;
    }
    return true;
  }

  static QpCounters Counters(const ibv_qp* qp) {
    QpCounters c;
    EXPECT_TRUE(GetQpCounters(qp, &c));
    return c;
  }
};

// A chain of `n` WRs with one SGE each, of `bytes` each.
struct Chain {
  Chain(int n, uint32_t bytes, ibv_wr_opcode op = IBV_WR_RDMA_WRITE)
      : wrs(n), sges(n) {
    for (int i = 0; i < n; ++i) {
      sges[i].addr = 0x1000;
      sges[i].length = bytes;
      sges[i].lkey = 1;
      wrs[i].wr_id = 100 + i;
      wrs[i].sg_list = &sges[i];
      wrs[i].num_sge = 1;
      wrs[i].opcode = op;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
  }
  ibv_send_wr* head() { return wrs.data(); }
  std::vector<ibv_send_wr> wrs;
  std::vector<ibv_sge> sges;
};

// Posts the whole chain through the (patched) inline ibv_post_send.
inline int Post(ibv_qp* qp, Chain& chain) {
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp, chain.head(), &bad);
}

// Posts `n` signaled WRs, wr_ids `first`.., one post each.
inline void PostSignaled(ibv_qp* qp, uint64_t first, int n) {
  for (int i = 0; i < n; ++i) {
    Chain ch(1, 64);
    ch.wrs[0].wr_id = first + static_cast<uint64_t>(i);
    ch.wrs[0].send_flags = IBV_SEND_SIGNALED;
    ASSERT_EQ(Post(qp, ch), 0);
  }
}

inline ShimTest::Res ShimTest::QpAfterOnePost(FakeDevice& d, uint32_t bytes) {
  Res r = MakeQp(d, false);
  Chain ch(1, bytes);
  EXPECT_EQ(Post(r.qp, ch), 0);
  return r;
}

// Posts with the device failing WR `fail_at`; returns the bad_wr reported.
inline ibv_send_wr* PostFailingAt(FakeDevice& d, ibv_qp* qp, Chain& chain,
                                  int fail_at) {
  d.fail_post_at = fail_at;
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, chain.head(), &bad), ENOMEM);
  return bad;
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_SHIM_FIXTURE_H_
