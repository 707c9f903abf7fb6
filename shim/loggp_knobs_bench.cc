// LogGP knobs at the device boundary: the shim over the recording fake
// device (every real post stamped with the TSC). Prints markdown tables:
//   1. message rate under VERBSEMU_GAP vs its target 1/g, per QP and per
//      port, through ibv_post_send and ibv_wr_complete;
//   2. CPU time (CLOCK_THREAD_CPUTIME_ID) inside the posting call under
//      VERBSEMU_OVERHEAD vs target, its median less the call's median
//      without it;
//   3. the same inside ibv_poll_cq returning one receive completion under
//      VERBSEMU_RECV_OVERHEAD.
// Usage: loggp_knobs_bench [--quick] [--cpu N]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "emulate/units.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"

namespace verbsemu::shim::internal {
namespace {

struct Opts {
  bool quick = false;
  int cpu = -1;  // pin to this CPU; -1: no pinning
};

// --quick and --cpu N; false on anything else.
bool ParseArgs(int argc, char** argv, Opts* o) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--quick") {
      o->quick = true;
    } else if (args[i] == "--cpu" && i + 1 < args.size()) {
      o->cpu = std::atoi(std::string(args[++i]).c_str());
    } else {
      return false;
    }
  }
  return true;
}

void Configure(const emulate::Config& c, const emulate::TscCalibration& cal) {
  ResetForTesting();
  Settings s;
  s.engine = c;
  ConfigureWithCalibration(s, cal);
}

FakeQpEnv Setup(FakeDevice& d) {
  return MakeFakeQp(d, {.wr_api = true, .connect = true, .cq_depth = 4096});
}

void Teardown(FakeQpEnv& e) {
  DestroyQp(e.qp);
  CloseDevice(e.ctx);
}

// One 64-byte RDMA WRITE through ibv_post_send or an ibv_wr_* batch.
void PostOne(const FakeQpEnv& e, bool wr_api) {
  if (wr_api) {
    ibv_wr_start(e.qpx);
    ibv_wr_rdma_write(e.qpx, 1, 0x2000);
    ibv_wr_set_sge(e.qpx, 1, 0x1000, 64);
    ibv_wr_complete(e.qpx);
    return;
  }
  ibv_sge sge{0x1000, 64, 1};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  ibv_send_wr* bad = nullptr;
  ibv_post_send(e.qp, &wr, &bad);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

// ------------------------------------------------------------ 1. gap
// Back-to-back posts on `qps` QPs in turn; the device's message rate from
// its first post to its last.
void GapRow(const Opts& o, const emulate::TscCalibration& cal, double gap_ns,
            emulate::GapScope scope, int qps, bool wr_api) {
  emulate::Config c;
  c.gap_ns = gap_ns;
  c.gap_scope = scope;
  Configure(c, cal);
  FakeDevice d("bench0");
  std::vector<FakeQpEnv> envs;
  for (int i = 0; i < qps; ++i) envs.push_back(Setup(d));
  const double secs = o.quick ? 0.1 : 0.5;
  const size_t n = std::clamp<size_t>(static_cast<size_t>(secs * 1e9 / gap_ns),
                                      1000, 200'000);
  d.ReservePosts(n);
  uint64_t first = 0;
  const uint64_t cpu0 = ThreadCpuNs();
  for (size_t i = 0; i < n; ++i) {
    PostOne(envs[i % envs.size()], wr_api);
    if (i == 0) first = d.last_post_tsc.load();
  }
  const uint64_t last = d.last_post_tsc.load();
  // The share of the run the thread was on a CPU: below 1, the host took
  // it away (the rate can then only fall short by what the catch-up window
  // does not make up).
  const double on_cpu =
      static_cast<double>(ThreadCpuNs() - cpu0) / cal.TicksToNs(last - first);
  // The device's spacing of consecutive messages (per QP under the QP
  // scope: every QPs-th post is the same QP's).
  const std::vector<PostRecord> posts = d.Posts();
  std::vector<double> spacing;
  for (size_t i = envs.size(); i < posts.size(); ++i) {
    const size_t prev =
        scope == emulate::GapScope::kQp ? i - envs.size() : i - 1;
    spacing.push_back(cal.TicksToNs(posts[i].tsc - posts[prev].tsc));
  }
  const double median_gap = Median(std::move(spacing));
  // Per QP, each QP keeps its own rate: the device sees qps times it.
  const double per = scope == emulate::GapScope::kQp ? qps : 1;
  const double target = per * 1e3 / gap_ns;  // Mmsg/s
  const double measured =
      static_cast<double>(n - 1) / cal.TicksToNs(last - first) * 1e3;
  std::printf(
      "| %s | %s | %d | %s | %zu | %.1f ns | %+.3f | %.4f | %.4f | %+.3f | "
      "%.3f |\n",
      units::FormatNs(gap_ns).c_str(),
      scope == emulate::GapScope::kQp ? "qp" : "port", qps,
      wr_api ? "ibv_wr_complete" : "ibv_post_send", n, median_gap,
      100.0 * (median_gap - gap_ns) / gap_ns, target, measured,
      100.0 * (measured - target) / target, on_cpu);
  for (FakeQpEnv& e : envs) Teardown(e);
}

void GapTable(const Opts& o, const emulate::TscCalibration& cal) {
  std::printf(
      "\n### Message rate under `--gap` vs target (64 B RDMA WRITEs, "
      "back to back)\n\n"
      "Median spacing: of one QP's consecutive messages at the device "
      "(per port: of any two). Mean rate: all messages over the run, "
      "which falls short by the time the host took the thread away "
      "beyond the catch-up window (on CPU: the thread's CPU time over the "
      "run's).\n\n"
      "| gap | scope | QPs | call | messages | median spacing | error %% | "
      "target Mmsg/s | mean Mmsg/s | error %% | on CPU |\n"
      "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (double g : {200.0, 500.0, 1000.0, 2000.0, 10000.0}) {
    GapRow(o, cal, g, emulate::GapScope::kQp, 1, false);
  }
  GapRow(o, cal, 1000, emulate::GapScope::kQp, 1, true);
  GapRow(o, cal, 1000, emulate::GapScope::kQp, 2, false);
  GapRow(o, cal, 1000, emulate::GapScope::kPort, 2, false);
  GapRow(o, cal, 500, emulate::GapScope::kPort, 4, true);
}

// ------------------------------------------------------------ 2. overhead
// The median CPU time of `call`, over `n` calls after 200 warm-up ones.
double MedianCpuNs(size_t n, const std::function<void()>& call) {
  std::vector<double> v;
  v.reserve(n);
  for (size_t i = 0; i < n + 200; ++i) {
    const uint64_t a = ThreadCpuNs();
    call();
    const uint64_t b = ThreadCpuNs();
    if (i >= 200) v.push_back(static_cast<double>(b - a));
  }
  return Median(std::move(v));
}

void OverheadRow(const Opts& o, const emulate::TscCalibration& cal,
                 double target, bool wr_api, double baseline) {
  emulate::Config c;
  c.overhead_ns = target;
  Configure(c, cal);
  FakeDevice d("bench0");
  d.record_posts = false;
  FakeQpEnv e = Setup(d);
  const size_t n = o.quick ? 2000 : 10000;
  const double cpu = MedianCpuNs(n, [&e, wr_api] { PostOne(e, wr_api); });
  const double added = cpu - baseline;
  std::printf("| %s | %s | %.1f ns | %.1f ns | %.1f ns | %+.2f |\n",
              units::FormatNs(target).c_str(),
              wr_api ? "ibv_wr_complete" : "ibv_post_send", cpu, baseline,
              added, 100.0 * (added - target) / target);
  Teardown(e);
}

// The same calls with nothing emulated: the provider's and the clock's cost.
double OverheadBaseline(const Opts& o, const emulate::TscCalibration& cal,
                        bool wr_api) {
  Configure(emulate::Config{}, cal);
  FakeDevice d("bench0");
  d.record_posts = false;
  FakeQpEnv e = Setup(d);
  const double cpu =
      MedianCpuNs(o.quick ? 2000 : 10000, [&e, wr_api] { PostOne(e, wr_api); });
  Teardown(e);
  return cpu;
}

void OverheadTable(const Opts& o, const emulate::TscCalibration& cal) {
  std::printf(
      "\n### CPU time inside the posting call under `--overhead` vs target "
      "(CLOCK_THREAD_CPUTIME_ID, median of %s calls)\n\n"
      "| overhead | call | median CPU | without | added | error %% |\n"
      "|---:|---|---:|---:|---:|---:|\n",
      o.quick ? "2k" : "10k");
  for (const bool wr_api : {false, true}) {
    const double baseline = OverheadBaseline(o, cal, wr_api);
    for (double t : {1000.0, 2000.0, 5000.0, 10000.0}) {
      OverheadRow(o, cal, t, wr_api, baseline);
    }
  }
}

// ------------------------------------------------------------ 3. recv
// The median CPU time of a poll that returns one receive completion.
double RecvPollCpuNs(const Opts& o, const emulate::TscCalibration& cal,
                     double target) {
  emulate::Config c;
  c.recv_overhead_ns = target;
  Configure(c, cal);
  FakeDevice d("bench0");
  d.record_posts = false;
  d.complete_recvs = true;
  FakeQpEnv e = Setup(d);
  std::vector<double> v;
  const size_t n = o.quick ? 2000 : 10000;
  for (size_t i = 0; i < n + 200; ++i) {
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    ibv_post_recv(e.qp, &wr, &bad);
    ibv_wc wc;
    const uint64_t a = ThreadCpuNs();
    const int got = ibv_poll_cq(e.cq, 1, &wc);
    const uint64_t b = ThreadCpuNs();
    if (i >= 200 && got == 1) v.push_back(static_cast<double>(b - a));
  }
  Teardown(e);
  return Median(std::move(v));
}

void RecvOverheadTable(const Opts& o, const emulate::TscCalibration& cal) {
  std::printf(
      "\n### CPU time inside ibv_poll_cq (one receive completion) under "
      "`--recv-overhead` vs target\n\n"
      "| recv overhead | median CPU | without | added | error %% |\n"
      "|---:|---:|---:|---:|---:|\n");
  const double baseline = RecvPollCpuNs(o, cal, 0);
  for (double t : {1000.0, 2000.0, 5000.0, 10000.0}) {
    const double cpu = RecvPollCpuNs(o, cal, t);
    std::printf("| %s | %.1f ns | %.1f ns | %.1f ns | %+.2f |\n",
                units::FormatNs(t).c_str(), cpu, baseline, cpu - baseline,
                100.0 * (cpu - baseline - t) / t);
  }
}

}  // namespace
}  // namespace verbsemu::shim::internal

int main(int argc, char** argv) {
  using namespace verbsemu::shim::internal;
  Opts o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr, "usage: %s [--quick] [--cpu N]\n", argv[0]);
    return 2;
  }
  const bool pinned = o.cpu >= 0 && verbsemu::emulate::PinToCpu(o.cpu);
  if (o.cpu >= 0 && !pinned) std::perror("sched_setaffinity");
  SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
  const auto cal = verbsemu::emulate::CalibrateTsc();
  std::printf(
      "## verbsemu LogGP knobs at the device boundary\n\nTSC %.4f GHz, "
      "calibrated spin fixed cost %.1f ns%s\n",
      cal.ticks_per_ns, cal.TicksToNs(cal.spin_fixed_cost_ticks),
      pinned ? ", pinned" : "");
  GapTable(o, cal);
  OverheadTable(o, cal);
  RecvOverheadTable(o, cal);
  return 0;
}
