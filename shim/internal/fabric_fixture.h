// The fixture of the VERBSEMU_FABRIC tests on the fake device
// (fabric_test.cc: links; fabric_penalty_test.cc: penalty): each fake
// device is a port with a virtual link of its own; a QP's peer is its
// address vector's GID. Test-only.
#ifndef VERBSEMU_SHIM_INTERNAL_FABRIC_FIXTURE_H_
#define VERBSEMU_SHIM_INTERNAL_FABRIC_FIXTURE_H_

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/shim_fixture.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {

// The posts are deferred (latency mode defer): each returns at once and is
// held until its links' release, as a NIC's send queue holds it, so one
// thread posting in turn on several QPs keeps them all busy, and a post's
// hold is decided by the links' schedules when it is posted. A spinning
// post would instead wait out its own message's time on the link before
// the next could go.
class FabricTest : public ShimTest {
 protected:
  static constexpr uint32_t kBytes = 65536;  // 524 us at 1 Gbit/s

  // Stops the engine (the defer mode's progress thread) before the devices
  // it posts to go: declared after them.
  struct StopEngineFirst {
    ~StopEngineFirst() { ResetForTesting(); }
  };

  // Pacing at 1 Gbit/s over a "real" link far faster, the posts deferred.
  void ConfigureFabric(emulate::Fabric fabric, const char* rate = "1Gbit/s",
                       std::shared_ptr<const PenaltySettings> penalties = {}) {
    emulate::Config c;
    c.bandwidth = *emulate::ParseBandwidth(rate);
    c.bw_mode = emulate::BwMode::kPace;
    c.link_bits_per_s = 1e12;
    c.latency_mode = emulate::LatencyMode::kDefer;
    c.fabric = fabric;
    Settings s;
    s.engine = c;
    s.report = "stderr";  // the holds are noted (lateness)
    s.penalties = std::move(penalties);
    Configure(s);
  }
  // A QP on `d` connected to the port whose GID ends in `peer`.
  // `wr_api`: made with ibv_create_qp_ex, for ibv_wr_* batches.
  static FakeQpEnv QpTo(FakeDevice& d, uint8_t peer, bool wr_api = false) {
    FakeQpEnv e = MakeFakeQp(d, {.wr_api = wr_api, .connect = false});
    EXPECT_NE(e.qp, nullptr);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE | IBV_QP_PORT), 0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.ah_attr.port_num = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.sgid_index = 1;
    a.ah_attr.grh.dgid.raw[15] = peer;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU),
              0);
    a = ibv_qp_attr{};
    a.qp_state = IBV_QPS_RTS;
    EXPECT_EQ(ModifyQp(e.qp, &a, IBV_QP_STATE), 0);
    return e;
  }
  // The windows' turns: "a" or "b" for each post the devices saw, in order.
  static std::string TurnsOfTwoWindows(bool wr_api) {
    FakeDevice a("fake0"), b("fake1");
    StopEngineFirst stop;
    const std::vector<FakeQpEnv> qps{QpTo(a, 9, wr_api), QpTo(b, 9, wr_api)};
    Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
    constexpr int kWindow = 4;
    for (const FakeQpEnv& e : qps) {
      for (int i = 0; i < kWindow; ++i) {
        if (!wr_api) {
          EXPECT_EQ(Post(e.qp, ch), 0);
          continue;
        }
        ibv_wr_start(e.qpx);
        ibv_wr_rdma_write(e.qpx, 1, 0x2000);
        ibv_wr_set_sge(e.qpx, 1, 0x1000, kBytes);
        EXPECT_EQ(ibv_wr_complete(e.qpx), 0);
      }
    }
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    ibv_wc wc[8];
    while (a.Posts().size() + b.Posts().size() < 2 * kWindow &&
           std::chrono::steady_clock::now() < end) {
      for (const FakeQpEnv& e : qps) ibv_poll_cq(e.cq, 8, wc);
    }
    std::vector<PostRecord> order = a.Posts();
    const std::vector<PostRecord> from_b = b.Posts();
    order.insert(order.end(), from_b.begin(), from_b.end());
    EXPECT_EQ(order.size(), 2u * kWindow);
    std::sort(
        order.begin(), order.end(),
        [](const PostRecord& x, const PostRecord& y) { return x.tsc < y.tsc; });
    std::string seq;
    for (const PostRecord& r : order) seq += r.qp == qps[0].qp ? 'a' : 'b';
    return seq;
  }
  // One message's time at 1 Gbit/s.
  static double MessageNs() { return kBytes * 8 / 1.0; }
  // VERBSEMU_FABRIC=penalty: device `host`'s QP to the port whose GID ends
  // in `peer`, the devices standing for different nodes.
  static FakeQpEnv FlowFrom(FakeDevice& d, uint8_t host, uint8_t peer) {
    d.gid_host = host;
    return QpTo(d, peer);
  }
  // What the posts were held for their links, together: each hold's
  // release less its post, as the schedules decided it when it was posted
  // (a slow hand-over, the host's doing, left out). A post made late, on a
  // loaded host, is only held less.
  static double ScheduledHoldNs() {
    const WaitLateness& l = E().lateness;
    return Cal().TicksToNs(l.waited_ticks() - l.sum_ticks());
  }
  // `posts` messages from each QP in turn, then every one handed to its
  // device: the rate they left at together, Gbit/s, from the first post to
  // the last device stamp (a loaded host only lowers it).
  static double PostInTurn(const std::vector<FakeQpEnv>& qps,
                           const std::vector<FakeDevice*>& devices, int posts) {
    Chain ch(1, kBytes, IBV_WR_RDMA_WRITE);
    const uint64_t start = emulate::ReadTsc();
    for (int i = 0; i < posts; ++i) {
      for (const FakeQpEnv& e : qps) EXPECT_EQ(Post(e.qp, ch), 0);
    }
    const size_t total = qps.size() * static_cast<size_t>(posts);
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    ibv_wc wc[8];
    for (;;) {
      size_t seen = 0;
      for (FakeDevice* d : devices) seen += d->Posts().size();
      if (seen >= total || std::chrono::steady_clock::now() > end) break;
      for (const FakeQpEnv& e : qps) ibv_poll_cq(e.cq, 8, wc);
    }
    uint64_t last = 0;
    size_t seen = 0;
    for (FakeDevice* d : devices) {
      last = std::max(last, d->last_post_tsc.load());
      seen += d->Posts().size();
    }
    EXPECT_EQ(seen, total);
    return static_cast<double>(uint64_t{kBytes} * total) * 8 /
           Cal().TicksToNs(last - start);
  }
  // The holds of n messages posted at once on one link: the k-th is held
  // k message times.
  static double HoldsOnOneLink(int n) {
    return MessageNs() * n * (n + 1) / 2.0;
  }
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FABRIC_FIXTURE_H_
