// VERBSEMU_TOPOLOGY on the fake device: each connected QP's peer, as its
// address vector names it at RTR, picks its link class, whose latency its
// posts wait; peers no route matches keep the global latency.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emulate/tsc.h"
#include "settings/knobs.h"
#include "shim/internal/cm_peer.h"
#include "shim/internal/defer.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/report.h"
#include "shim/internal/report_json.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

class PeerClassTest : public ShimTest {
 protected:
  // Settings from the environment the launcher would give, with the file
  // written to this test's own temporary directory.
  Settings FromEnv(const std::string& topology, const char* latency,
                   const char* mode = nullptr, const char* bw_mode = nullptr) {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = std::string(dir != nullptr ? dir : "/tmp") + "/" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            ".topology";
    std::ofstream(path_) << topology;
    const SettingsResult r =
        SettingsFromEnv([&](const char* name) -> const char* {
          const std::string n = name;
          if (n == "VERBSEMU_TOPOLOGY") return path_.c_str();
          if (n == "VERBSEMU_LATENCY") return latency;
          if (n == "VERBSEMU_LATENCY_MODE") return mode;
          if (n == "VERBSEMU_BW_MODE") return bw_mode;
          if (n == "VERBSEMU_REPORT") return "stderr";
          return nullptr;
        });
    EXPECT_TRUE(r.ok()) << r.error;
    return r.settings;
  }
  // A QP brought to RTS with its peer at the IPv4-mapped GID ::ffff:PEER.
  ibv_qp* QpTo(const Res& r, uint8_t third, uint8_t fourth) {
    ibv_qp* qp = CreateRcQpBeside(r);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    EXPECT_EQ(ModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTR;
    a.ah_attr.port_num = 1;
    a.ah_attr.is_global = 1;
    const uint8_t gid[16] = {0, 0, 0,    0,    0,  0, 0,     0,
                             0, 0, 0xff, 0xff, 10, 0, third, fourth};
    std::copy(gid, gid + 16, a.ah_attr.grh.dgid.raw);
    EXPECT_EQ(ModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_AV), 0);
    return qp;
  }
  // An address handle to ::ffff:10.0.THIRD.9 on port 1.
  static ibv_ah* AhTo(const Res& r, uint8_t third) {
    ibv_ah_attr a{};
    a.port_num = 1;
    a.is_global = 1;
    const uint8_t gid[16] = {0, 0, 0,    0,    0,  0, 0,     0,
                             0, 0, 0xff, 0xff, 10, 0, third, 9};
    std::copy(gid, gid + 16, a.grh.dgid.raw);
    ibv_ah* ah = CreateAh(r.pd, &a);
    EXPECT_NE(ah, nullptr);
    return ah;
  }
  // Class "near" (+40 us) for 10.0.2.0/24, 5 us elsewhere.
  void ConfigureNearClass() {
    Configure(
        FromEnv("class near latency=40us\nroute * 10.0.2.0/24 near\n", "5us"));
  }
  // A UD QP under ConfigureNearClass with a 5 us global latency:
  // `shortest(ah)` to 10.0.2.9 waits the near class, to 10.0.4.9 the global
  // one. Destroys the QP.
  template <class Shortest>
  static void ExpectUdClasses(const Res& r, ibv_qp* ud, Shortest shortest) {
    ibv_ah* near = AhTo(r, 2);
    ibv_ah* other = AhTo(r, 4);
    const double near_ns = shortest(near);
    const double other_ns = shortest(other);
    EXPECT_GE(near_ns, 40e3 * 0.99);
    EXPECT_GE(other_ns, 5e3 * 0.99);
    EXPECT_LT(other_ns, 40e3);
    EXPECT_EQ(DestroyAh(near), 0);
    EXPECT_EQ(DestroyAh(other), 0);
    EXPECT_EQ(DestroyQp(ud), 0);
  }
  // The shortest delay (ns) from `post()` to the device's post, over `n`
  // posts: a floor preemption cannot lower.
  template <class PostFn>
  static double ShortestNs(FakeDevice& d, int n, PostFn post) {
    double best = 1e18;
    for (int i = 0; i < n; ++i) {
      const uint64_t t0 = emulate::ReadTsc();
      post();
      best = std::min(best, Cal().TicksToNs(d.last_post_tsc.load() - t0));
    }
    return best;
  }
  static double ShortestPostNs(FakeDevice& d, ibv_qp* qp, int n) {
    Chain ch(1, 64);
    return ShortestNs(d, n, [&] { EXPECT_EQ(Post(qp, ch), 0); });
  }
  std::string path_;
};

TEST_F(PeerClassTest, EachPeerWaitsItsClassLatency) {
  Configure(
      FromEnv("class near latency=40us\n"
              "class far  latency=120us\n"
              "route * 10.0.2.0/24 near\n"
              "route * 10.0.3.0/24 far\n",
              "10us"));
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* near = QpTo(r, 2, 5);
  ibv_qp* far = QpTo(r, 3, 7);
  ibv_qp* other = QpTo(r, 9, 1);
  const double near_ns = ShortestPostNs(d, near, 20);
  const double far_ns = ShortestPostNs(d, far, 20);
  const double other_ns = ShortestPostNs(d, other, 20);
  EXPECT_GE(near_ns, 40e3 * 0.99);
  EXPECT_LT(near_ns, 120e3);
  EXPECT_GE(far_ns, 120e3 * 0.99);
  EXPECT_GE(other_ns, 10e3 * 0.99);
  EXPECT_LT(other_ns, 40e3);
  const std::string report = ReportText();
  EXPECT_NE(report.find("topology " + path_ +
                        ": near 1 QP, far 1 QP, "
                        "no route 1 QP"),
            std::string::npos)
      << report;
  for (ibv_qp* qp : {near, far, other}) EXPECT_EQ(DestroyQp(qp), 0);
}

// A class's bandwidth alone (none set globally) still chooses the shaper,
// and the report and its JSON name the one the links use.
TEST_F(PeerClassTest, AClassBandwidthAloneNamesItsShaper) {
  Configure(FromEnv("class spine bandwidth=50%\nroute * 10.0.2.0/24 spine\n",
                    nullptr));
  EXPECT_TRUE(E().bw.pad());
  EXPECT_NE(ReportText().find("bandwidth native (pad)"), std::string::npos)
      << ReportText();
  EXPECT_EQ(nlohmann::json::parse(ReportJson())["settings"]["bw_mode"], "pad");
  Configure(FromEnv("class spine bandwidth=50%\nroute * 10.0.2.0/24 spine\n",
                    nullptr, nullptr, "pace"));
  EXPECT_TRUE(E().bw.pace());
  Configure(
      FromEnv("class spine latency=2us\nroute * 10.0.2.0/24 spine\n", nullptr));
  EXPECT_FALSE(E().bw.shaper.has_value());
}

TEST_F(PeerClassTest, MatchesTheLocalPortToo) {
  // The fake port 1's GID at index 0 is ::ffff:10.0.1.1.
  Configure(
      FromEnv("class mine latency=30us\n"
              "route 10.0.1.0/24 * mine\n",
              "0"));
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* qp = QpTo(r, 2, 5);
  EXPECT_GE(ShortestPostNs(d, qp, 10), 30e3 * 0.99);
  EXPECT_EQ(DestroyQp(qp), 0);
}

// The mlx5 personality (no post before RTS): each connected QP takes its
// class at RTR all the same.
TEST_F(PeerClassTest, EachPeerWaitsItsClassLatencyOnMlx5) {
  ConfigureNearClass();
  FakeDevice d("mlx5_0");
  d.personality = Personality::kMlx5;
  Res r = MakeQp(d, false, /*connect=*/false);
  auto at_rts = [&](uint8_t third) {
    ibv_qp* qp = QpTo(r, third, 5);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    EXPECT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
    return qp;
  };
  ibv_qp* near = at_rts(2);
  ibv_qp* other = at_rts(4);
  EXPECT_GE(ShortestPostNs(d, near, 10), 40e3 * 0.99);
  const double other_ns = ShortestPostNs(d, other, 10);
  EXPECT_GE(other_ns, 5e3 * 0.99);
  EXPECT_LT(other_ns, 40e3);
  EXPECT_EQ(DestroyQp(near), 0);
  EXPECT_EQ(DestroyQp(other), 0);
}

TEST_F(PeerClassTest, AUdPostWaitsItsAddressHandlesClass) {
  ConfigureNearClass();
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp_init_attr init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_UD;
  ibv_qp* ud = CreateQp(r.pd, &init);
  ASSERT_NE(ud, nullptr);
  auto shortest = [&](ibv_ah* ah) {
    Chain ch(1, 64, IBV_WR_SEND);
    ch.wrs[0].wr.ud.ah = ah;
    ch.wrs[0].wr.ud.remote_qpn = 5;
    return ShortestNs(d, 10, [&] { EXPECT_EQ(Post(ud, ch), 0); });
  };
  ExpectUdClasses(r, ud, shortest);
}

// An ibv_wr_* batch on a UD QP: its destination is known only at
// wr_set_ud_addr, after wr_start; the recorded batch waits its first WR's
// address handle's class at wr_complete, as a UD chain does.
TEST_F(PeerClassTest, AUdWrBatchWaitsItsAddressHandlesClass) {
  ConfigureNearClass();
  FakeDevice d("fake0");
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp_init_attr_ex init{};
  init.send_cq = r.cq;
  init.recv_cq = r.cq;
  init.qp_type = IBV_QPT_UD;
  init.pd = r.pd;
  init.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  init.send_ops_flags = IBV_QP_EX_WITH_SEND;
  ibv_qp* ud = ibv_create_qp_ex(r.ctx, &init);
  ASSERT_NE(ud, nullptr);
  ibv_qp_ex* x = Real().qp_to_qp_ex(ud);
  ASSERT_NE(x, nullptr);
  auto shortest = [&](ibv_ah* ah) {
    return ShortestNs(d, 10, [&] {
      ibv_wr_start(x);
      ibv_wr_send(x);
      ibv_wr_set_ud_addr(x, ah, 5, 0x11);
      ibv_wr_set_sge(x, 1, 0x1000, 64);
      EXPECT_EQ(ibv_wr_complete(x), 0);
    });
  };
  ExpectUdClasses(r, ud, shortest);
}

// iWARP: rdma_cm connects the QP without an address vector, so its class
// comes from the ends rdma_cm resolved (rdma_connect, rdma_accept).
class CmPeerTest : public PeerClassTest {
 protected:
  void SetUp() override {
    PeerClassTest::SetUp();
    ConfigureNearClass();
  }
  // librdmacm's own calls, as the fake device's table has none.
  static void StubRdmaCm() {
    RealVerbs t = Real();
    t.rdma_connect = [](rdma_cm_id*, rdma_conn_param*) { return 0; };
    t.rdma_accept = [](rdma_cm_id*, rdma_conn_param*) { return 7; };
    SetRealVerbsForTesting(t);
  }
  // A cm id of `qp` from 10.0.1.1 to 10.0.THIRD.5.
  static rdma_cm_id IdOf(ibv_qp* qp, uint8_t third) {
    rdma_cm_id id{};
    id.qp = qp;
    id.route.addr.src_sin.sin_family = AF_INET;
    inet_pton(AF_INET, "10.0.1.1", &id.route.addr.src_sin.sin_addr);
    id.route.addr.dst_sin.sin_family = AF_INET;
    const std::string peer = "10.0." + std::to_string(third) + ".5";
    inet_pton(AF_INET, peer.c_str(), &id.route.addr.dst_sin.sin_addr);
    return id;
  }
  // To RTS as iWARP's rdma_cm moves it: no address vector at RTR.
  static void ToRtsWithoutAv(ibv_qp* qp) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    EXPECT_EQ(ModifyQp(qp, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
    for (const ibv_qp_state s : {IBV_QPS_RTR, IBV_QPS_RTS}) {
      a = ibv_qp_attr{};
      a.qp_state = s;
      EXPECT_EQ(ModifyQp(qp, &a, IBV_QP_STATE), 0);
    }
  }
};

TEST_F(CmPeerTest, AQpWithoutAnAddressVectorTakesItsClassAtRdmaConnect) {
  FakeDevice d("fake0");
  StubRdmaCm();
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* near = CreateRcQpBeside(r);
  ibv_qp* other = CreateRcQpBeside(r);
  rdma_cm_id near_id = IdOf(near, 2), other_id = IdOf(other, 4);
  EXPECT_EQ(CmConnect(&near_id, nullptr), 0);  // librdmacm's answer
  EXPECT_EQ(CmConnect(&other_id, nullptr), 0);
  ToRtsWithoutAv(near);
  ToRtsWithoutAv(other);
  EXPECT_GE(ShortestPostNs(d, near, 10), 40e3 * 0.99);
  const double other_ns = ShortestPostNs(d, other, 10);
  EXPECT_GE(other_ns, 5e3 * 0.99);
  EXPECT_LT(other_ns, 40e3);
  const std::string report = ReportText();
  EXPECT_NE(report.find(": near 1 QP, no route 1 QP"), std::string::npos)
      << report;
  for (ibv_qp* qp : {near, other}) EXPECT_EQ(DestroyQp(qp), 0);
}

TEST_F(CmPeerTest, RdmaAcceptAfterRtrClassifiesAtOnce) {
  FakeDevice d("fake0");
  StubRdmaCm();
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* qp = CreateRcQpBeside(r);
  ToRtsWithoutAv(qp);
  rdma_cm_id id = IdOf(qp, 2);
  EXPECT_EQ(CmAccept(&id, nullptr), 7);
  EXPECT_GE(ShortestPostNs(d, qp, 10), 40e3 * 0.99);
  EXPECT_EQ(DestroyQp(qp), 0);
}

TEST_F(CmPeerTest, AnAddressVectorKeepsItsOwnClass) {
  FakeDevice d("fake0");
  StubRdmaCm();
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* qp = QpTo(r, 9, 1);  // no route: the global 5 us
  rdma_cm_id id = IdOf(qp, 2);
  EXPECT_EQ(CmConnect(&id, nullptr), 0);
  EXPECT_LT(ShortestPostNs(d, qp, 10), 40e3);
  EXPECT_EQ(DestroyQp(qp), 0);
}

TEST(CmPeer, IpAddressesAreGidsAsRoceWritesThem) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  inet_pton(AF_INET, "10.1.2.3", &sin.sin_addr);
  const auto v4 = GidOfSockaddr(reinterpret_cast<const sockaddr*>(&sin));
  ASSERT_TRUE(v4);
  const std::array<uint8_t, 16> want{0, 0, 0,    0,    0,  0, 0, 0,
                                     0, 0, 0xff, 0xff, 10, 1, 2, 3};
  EXPECT_EQ(*v4, want);
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "fe80::2:c903:0:1234", &sin6.sin6_addr);
  const auto v6 = GidOfSockaddr(reinterpret_cast<const sockaddr*>(&sin6));
  ASSERT_TRUE(v6);
  EXPECT_EQ((*v6)[0], 0xfe);
  EXPECT_EQ((*v6)[15], 0x34);
  sockaddr other{};
  other.sa_family = AF_UNIX;
  EXPECT_FALSE(GidOfSockaddr(&other));
  EXPECT_FALSE(GidOfSockaddr(nullptr));
}

// Declared after a test's FakeDevice, so it goes first: the progress thread
// stops before the device it posts to is freed.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

// Defer mode, a UD QP with a near (1 us) and a far (50 ms) class: each
// destination's posts keep their order, not the QP's.
class UdOrderTest : public PeerClassTest {
 protected:
  void SetUp() override {
    PeerClassTest::SetUp();
    Configure(
        FromEnv("class near latency=1us\nclass far latency=50ms\n"
                "route * 10.0.2.0/24 near\nroute * 10.0.4.0/24 far\n",
                "1us", "defer"));
  }
  // A UD QP of `r`'s device and CQ (every WR signaled: `sig_all`).
  static ibv_qp* UdQp(const Res& r, bool sig_all) {
    ibv_qp_init_attr init{};
    init.send_cq = r.cq;
    init.recv_cq = r.cq;
    init.qp_type = IBV_QPT_UD;
    init.sq_sig_all = sig_all ? 1 : 0;
    init.cap.max_send_wr = 64;
    init.cap.max_send_sge = 1;
    ibv_qp* ud = CreateQp(r.pd, &init);
    EXPECT_NE(ud, nullptr);
    return ud;
  }
  // Posts one WR `wr_id` to `ah`.
  static void PostTo(ibv_qp* ud, ibv_ah* ah, uint64_t wr_id, bool signaled) {
    Chain ch(1, 64, IBV_WR_SEND);
    ch.wrs[0].wr_id = wr_id;
    ch.wrs[0].wr.ud.ah = ah;
    ch.wrs[0].wr.ud.remote_qpn = 5;
    ch.wrs[0].send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    EXPECT_EQ(Post(ud, ch), 0);
  }
  // The wr_ids the device saw, in its order.
  static std::vector<uint64_t> DeviceOrder(FakeDevice& d) {
    std::vector<uint64_t> ids;
    for (const PostRecord& p : d.Posts()) ids.push_back(p.wr_id);
    return ids;
  }
  // Polls `cq` one completion at a time until `want` were polled (or 5 s
  // passed); their wr_ids in the order polled. `*early`: how many were
  // polled while the device had seen fewer than `posts` posts.
  static std::vector<uint64_t> PollIds(FakeDevice& d, ibv_cq* cq, size_t want,
                                       size_t posts, size_t* early) {
    std::vector<uint64_t> ids;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    *early = 0;
    while (ids.size() < want && std::chrono::steady_clock::now() < end) {
      ibv_wc wc{};
      if (ibv_poll_cq(cq, 1, &wc) != 1) continue;
      ids.push_back(wc.wr_id);
      if (d.Posts().size() < posts) ++*early;
    }
    return ids;
  }
  struct Outcome {
    std::vector<uint64_t> device;  // wr_ids in the device's order
    std::vector<uint64_t> polled;  // in the application's
    size_t early = 0;              // polled before the device had every post
  };
  // On a UD QP: WR 1 to the far class (signaled or not), then `near` WRs
  // 2, 3, ... to the near one, signaled; polls every signaled WR's
  // completion.
  Outcome FarThenNear(bool far_signaled, int near) {
    FakeDevice d("fake0");
    StopEngineFirst stop;
    Res r = MakeQp(d, false, /*connect=*/false);
    ibv_qp* ud = UdQp(r, /*sig_all=*/false);
    ibv_ah* near_ah = AhTo(r, 2);
    ibv_ah* far_ah = AhTo(r, 4);
    PostTo(ud, far_ah, 1, far_signaled);
    for (int i = 0; i < near; ++i) PostTo(ud, near_ah, 2 + i, true);
    const size_t posts = 1 + static_cast<size_t>(near);
    Outcome o;
    o.polled =
        PollIds(d, r.cq, posts - (far_signaled ? 0 : 1), posts, &o.early);
    o.device = DeviceOrder(d);
    EXPECT_EQ(DestroyAh(near_ah), 0);
    EXPECT_EQ(DestroyAh(far_ah), 0);
    EXPECT_EQ(DestroyQp(ud), 0);
    return o;
  }
};

TEST_F(UdOrderTest, ANearWrLeavesBeforeAFarOneAndCompletesAfterIt) {
  const Outcome o = FarThenNear(/*far_signaled=*/true, 2);
  EXPECT_EQ(o.device, (std::vector<uint64_t>{2, 3, 1}));
  EXPECT_EQ(o.polled, (std::vector<uint64_t>{1, 2, 3}));
  // The near WRs' completions waited for the far one's.
  EXPECT_EQ(o.early, 0u);
}

// An unsignaled WR is never passed: nothing would tell the shim it
// completed before the WRs that passed it.
TEST_F(UdOrderTest, AnUnsignaledFarWrIsNotPassed) {
  const Outcome o = FarThenNear(/*far_signaled=*/false, 1);
  EXPECT_EQ(o.device, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(o.polled, (std::vector<uint64_t>{2}));
  EXPECT_EQ(o.early, 0u);
}

// An extended CQ (ibv_start_poll) hides its completions from the shim, so
// a UD QP sending to one keeps a single FIFO.
TEST_F(UdOrderTest, AQpOnAnExtendedCqKeepsOneFifo) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false, /*connect=*/false);
  DeferNoteExtendedCq(r.cq);
  ibv_qp* ud = UdQp(r, /*sig_all=*/false);
  ibv_ah* near_ah = AhTo(r, 2);
  ibv_ah* far_ah = AhTo(r, 4);
  PostTo(ud, far_ah, 1, true);
  PostTo(ud, near_ah, 2, true);
  EXPECT_TRUE(PollUntilPosts(d, r.cq, 2, std::chrono::seconds(5)));
  EXPECT_EQ(DeviceOrder(d), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(DestroyAh(near_ah), 0);
  EXPECT_EQ(DestroyAh(far_ah), 0);
  EXPECT_EQ(DestroyQp(ud), 0);
  DeferForgetCq(r.cq);
}

// A connected QP has one destination: its posts leave in post order.
TEST_F(UdOrderTest, AnRcQpKeepsPostOrder) {
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false, /*connect=*/false);
  ibv_qp* qp = QpTo(r, 4, 9);  // far
  Chain ch(3, 64);
  for (int i = 0; i < 3; ++i) ch.wrs[i].send_flags = IBV_SEND_SIGNALED;
  EXPECT_EQ(Post(qp, ch), 0);
  ASSERT_TRUE(PollUntilPosts(d, r.cq, 3, std::chrono::seconds(5)));
  EXPECT_EQ(DeviceOrder(d), (std::vector<uint64_t>{100, 101, 102}));
  EXPECT_EQ(DestroyQp(qp), 0);
}

TEST_F(PeerClassTest, ABadClassLatencyNamesItsLine) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(dir != nullptr ? dir : "/tmp") + "/bad.topology";
  std::ofstream(path) << "class ok latency=1us\nclass bad latency=normal(1us)\n"
                         "route * * ok\n";
  const SettingsResult r = SettingsFromEnv([&](const char* name) {
    return std::string(name) == "VERBSEMU_TOPOLOGY" ? path.c_str() : nullptr;
  });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("line 2: class bad: latency"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::shim::internal
