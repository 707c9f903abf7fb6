// LogGP knobs at the device boundary: the shim over the recording fake
// device (every real post stamped with the TSC). Prints markdown tables:
//   1. message rate under VERBSEMU_GAP vs its target 1/g, per QP and per
//      port, through ibv_post_send and ibv_wr_complete;
//   2. time inside the posting call under VERBSEMU_OVERHEAD vs target, its
//      median less the call's median without it (and the thread's CPU
//      time, a check that the time was spent on the CPU);
//   3. the same inside ibv_poll_cq returning one receive completion under
//      VERBSEMU_RECV_OVERHEAD.
// Usage: loggp_knobs_bench [--quick] [--cpu N] [--only gap|overhead|recv]
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
#include "stats/stats.h"

namespace verbsemu::shim::internal {
namespace {

using emulate::SteppedMedian;

struct Opts {
  bool quick = false;
  int cpu = -1;           // pin to this CPU; -1: no pinning
  std::string_view only;  // one table: gap, overhead or recv; empty: all
  double period_ns = 0;   // the TSC's read period (TscReadPeriodTicks)
};

// --quick, --cpu N and --only TABLE; false on anything else.
bool ParseArgs(int argc, char** argv, Opts* o) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--quick") {
      o->quick = true;
    } else if (args[i] == "--cpu" && i + 1 < args.size()) {
      o->cpu = std::atoi(std::string(args[++i]).c_str());
    } else if (args[i] == "--only" && i + 1 < args.size()) {
      o->only = args[++i];
      if (o->only != "gap" && o->only != "overhead" && o->only != "recv")
        return false;
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

using stats::Median;

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
  envs.reserve(static_cast<size_t>(qps));
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
// A call's time by the TSC (ns) and by the thread's CPU clock (ns). The TSC
// reads cost a few ns and step evenly, so their median, interpolated within
// the clock's step, resolves a few ns; the CPU clock is a system call here,
// whose own cost and jitter are hundreds of ns, and is kept as a check that
// the time was the thread's (the host did not take the CPU away).
struct CallTimes {
  std::vector<double> tsc, cpu;
};

void TimeCalls(size_t n, const emulate::TscCalibration& cal,
               const std::function<void()>& call, CallTimes* out) {
  for (size_t i = 0; i < n + 100; ++i) {
    const uint64_t c0 = ThreadCpuNs();
    const uint64_t t0 = emulate::ReadTsc();
    call();
    const uint64_t t1 = emulate::ReadTsc();
    const uint64_t c1 = ThreadCpuNs();
    if (i < 100) continue;  // warm-up
    out->tsc.push_back(cal.TicksToNs(t1 - t0));
    out->cpu.push_back(static_cast<double>(c1 - c0));
  }
}

// One knob's added time in a call, in rounds as device_boundary_bench's: each
// round starts the shim afresh with the knob (`with`) and without it
// (`without`) and times `n / kRounds` calls of each, set up by `env` (which
// returns the call). Added time: the rounds' pooled TSC times less their
// round's median without; CPU: the pooled medians' difference.
struct Added {
  double tsc_ns = 0, cpu_ns = 0, without_ns = 0;
};

using CallEnv = std::function<std::function<void()>(FakeDevice&, FakeQpEnv*)>;

Added AddedTime(const Opts& o, const emulate::TscCalibration& cal,
                const emulate::Config& with, const CallEnv& env) {
  constexpr size_t kRounds = 8;
  const size_t n = (o.quick ? 2000 : 10000) / kRounds;
  std::vector<double> added, base_tsc;
  CallTimes on, off;
  for (size_t r = 0; r < kRounds; ++r) {
    double base = 0;
    for (const bool knob : {false, true}) {
      Configure(knob ? with : emulate::Config{}, cal);
      FakeDevice d("bench0");
      d.record_posts = false;
      FakeQpEnv e;
      const std::function<void()> call = env(d, &e);
      CallTimes t;
      TimeCalls(n, cal, call, &t);
      Teardown(e);
      CallTimes& pool = knob ? on : off;
      pool.cpu.insert(pool.cpu.end(), t.cpu.begin(), t.cpu.end());
      if (!knob) {
        base = SteppedMedian(t.tsc, o.period_ns);
        base_tsc.push_back(base);
        continue;
      }
      for (double x : t.tsc) added.push_back(x - base);
    }
  }
  return {SteppedMedian(added, o.period_ns), Median(on.cpu) - Median(off.cpu),
          Median(base_tsc)};
}

void PrintAddedRow(const char* call, double target, const Added& a) {
  std::printf("| %s | %s | %.1f ns | %.1f ns | %+.1f ns | %+.2f | %.0f ns |\n",
              units::FormatNs(target).c_str(), call, a.without_ns, a.tsc_ns,
              a.tsc_ns - target, 100.0 * (a.tsc_ns - target) / target,
              a.cpu_ns);
}

const char* kAddedHeader =
    "| target | call | without | added (median) | error | error %% | "
    "CPU added |\n|---:|---|---:|---:|---:|---:|---:|\n";

// Posts for `seconds` without the knob first: the first 100 ms of posts on
// this host ran 30-50% slower (its CPU coming up to speed), which the first
// row's rounds would otherwise measure.
void WarmUp(const emulate::TscCalibration& cal, double seconds) {
  Configure(emulate::Config{}, cal);
  FakeDevice d("bench0");
  d.record_posts = false;
  FakeQpEnv e = Setup(d);
  const uint64_t end = emulate::ReadTsc() + cal.NsToTicks(seconds * 1e9);
  while (emulate::ReadTsc() < end) PostOne(e, false);
  Teardown(e);
}

void OverheadTable(const Opts& o, const emulate::TscCalibration& cal) {
  WarmUp(cal, 0.5);
  std::printf(
      "\n### Time inside the posting call under `--overhead` vs target "
      "(TSC, median of %s calls in 8 fresh starts, each less its start's "
      "median without the knob; CPU added: the thread's CPU clock)\n\n",
      o.quick ? "2k" : "10k");
  std::printf(kAddedHeader);
  for (const bool wr_api : {false, true}) {
    for (double t : {1000.0, 2000.0, 5000.0, 10000.0}) {
      emulate::Config c;
      c.overhead_ns = t;
      const Added a =
          AddedTime(o, cal, c, [wr_api](FakeDevice& d, FakeQpEnv* e) {
            *e = Setup(d);
            return std::function<void()>([e, wr_api] { PostOne(*e, wr_api); });
          });
      PrintAddedRow(wr_api ? "ibv_wr_start..complete" : "ibv_post_send", t, a);
    }
  }
}

// ------------------------------------------------------------ 3. recv
// ibv_poll_cq returning one receive completion, timed with the
// ibv_post_recv before it (the same with and without the knob).
void RecvOverheadTable(const Opts& o, const emulate::TscCalibration& cal) {
  std::printf(
      "\n### Time inside ibv_poll_cq (one receive completion) under "
      "`--recv-overhead` vs target (as above)\n\n");
  WarmUp(cal, 0.5);
  std::printf(kAddedHeader);
  for (double t : {1000.0, 2000.0, 5000.0, 10000.0}) {
    emulate::Config c;
    c.recv_overhead_ns = t;
    const Added a = AddedTime(o, cal, c, [](FakeDevice& d, FakeQpEnv* e) {
      d.complete_recvs = true;
      *e = Setup(d);
      return std::function<void()>([e] {
        ibv_recv_wr wr{};
        ibv_recv_wr* bad = nullptr;
        ibv_post_recv(e->qp, &wr, &bad);
        ibv_wc wc;
        ibv_poll_cq(e->cq, 1, &wc);
      });
    });
    PrintAddedRow("ibv_poll_cq", t, a);
  }
}

}  // namespace
}  // namespace verbsemu::shim::internal

int main(int argc, char** argv) {
  using namespace verbsemu::shim::internal;
  Opts o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s [--quick] [--cpu N] [--only gap|overhead|recv]\n",
                 argv[0]);
    return 2;
  }
  const bool pinned = o.cpu >= 0 && verbsemu::emulate::PinToCpu(o.cpu);
  if (o.cpu >= 0 && !pinned) std::perror("sched_setaffinity");
  SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
  const auto cal = verbsemu::emulate::CalibrateTsc();
  o.period_ns = cal.TicksToNs(verbsemu::emulate::TscReadPeriodTicks());
  std::printf(
      "## verbsemu LogGP knobs at the device boundary\n\nTSC %.4f GHz, "
      "calibrated spin fixed cost %.1f ns%s\n",
      cal.ticks_per_ns, cal.TicksToNs(cal.spin_fixed_cost_ticks),
      pinned ? ", pinned" : "");
  if (o.only.empty() || o.only == "gap") GapTable(o, cal);
  if (o.only.empty() || o.only == "overhead") OverheadTable(o, cal);
  if (o.only.empty() || o.only == "recv") RecvOverheadTable(o, cal);
  return 0;
}
