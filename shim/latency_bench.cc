// Latency modes at the device boundary (docs/accuracy.md): the message rate
// a window of posts keeps under spin and defer against native, and each
// WR's delay from the application's post to the provider's. The fake device
// has a wire behind it (one message at a time, then a fixed latency to the
// completion), so native is bounded by the wire, as on a real link, and
// the window is the application's (perftest's tx depth).
// Then each delay law's injected delays against the law (KS distance), and
// what defer adds to an ibv_poll_cq with nothing to merge.
// Usage (from the repository's root, for the replayed rxe histogram):
//   latency_bench [--quick] [--poll-only] [--cpu N] [--latency D] [--window W]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "emulate/config.h"
#include "emulate/delay_distribution.h"
#include "emulate/tsc.h"
#include "emulate/units.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/real_verbs.h"
#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

using emulate::ReadTsc;

struct Opts {
  bool quick = false;
  bool poll_only = false;  // --poll-only: the defer poll's cost alone
  double latency_ns = 10'000;
  int window = 64;
  uint32_t size = 64;
  double wire_msg_ns = 1000;       // 1 M messages/s on the wire
  double wire_latency_ns = 2'000;  // to the completion
};

enum class Mode { kNative, kSpin, kDefer };
const char* Name(Mode m) {
  return m == Mode::kNative ? "native" : m == Mode::kSpin ? "spin" : "defer";
}

struct Result {
  double msgs_per_s = 0;
  std::vector<double> delays_ns;  // per WR: application post -> provider
  // Defer: the progress thread's looks, and the posts it handed over.
  uint64_t thread_looks = 0, thread_handed = 0, posts = 0;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const size_t k = std::min(
      v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

// Keeps `window` signaled WRs in flight until `n` complete (after `warm`
// more): the message rate over the `n`, and every WR's delay.
Result Run(const Opts& o, Mode mode, const emulate::TscCalibration& cal,
           size_t n, size_t warm) {
  ResetForTesting();
  Settings s;
  s.engine.latency_ns = mode == Mode::kNative ? 0 : o.latency_ns;
  s.engine.latency_mode = mode == Mode::kDefer ? emulate::LatencyMode::kDefer
                                               : emulate::LatencyMode::kSpin;
  ConfigureWithCalibration(s, cal);
  FakeDevice d("bench0");
  d.wire_msg_ticks = cal.NsToTicks(o.wire_msg_ns);
  d.wire_latency_ticks = cal.NsToTicks(o.wire_latency_ns);
  FakeQpEnv e = MakeFakeQp(d, {.through_shim = mode != Mode::kNative,
                               .connect = true,
                               .cq_depth = 4096});
  const size_t total = n + warm;
  std::vector<uint64_t> posted(total);
  ibv_sge sge{0x1000, o.size, 1};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  size_t sent = 0, done = 0;
  uint64_t start = 0;
  ibv_wc wc[16];
  while (done < total) {
    while (sent < total && sent - done < static_cast<size_t>(o.window)) {
      wr.wr_id = sent;
      ibv_send_wr* bad = nullptr;
      posted[sent] = ReadTsc();
      if (ibv_post_send(e.qp, &wr, &bad) != 0) std::abort();
      ++sent;
    }
    const int got = ibv_poll_cq(e.cq, 16, wc);
    done += static_cast<size_t>(std::max(got, 0));
    if (start == 0 && done >= warm) start = ReadTsc();
  }
  Result r;
  r.msgs_per_s = static_cast<double>(done - warm) /
                 (cal.TicksToNs(ReadTsc() - start) / 1e9);
  for (const PostRecord& p : d.Posts()) {
    if (p.wr_id >= warm) {
      r.delays_ns.push_back(cal.TicksToNs(p.tsc - posted[p.wr_id]));
    }
  }
  if (mode != Mode::kNative) DestroyQp(e.qp);
  r.thread_looks = E().defer.counts.thread_wakes.Get();
  r.thread_handed = E().defer.counts.thread_handed.Get();
  r.posts = total;
  return r;
}

// Modes alternate within each repetition, so a change in the machine's
// load touches all of them; the table gives each mode's median rate.
void RateTable(const Opts& o, const emulate::TscCalibration& cal) {
  const size_t n = o.quick ? 50'000 : 200'000, warm = 2'000;
  const int reps = o.quick ? 3 : 7;
  std::printf(
      "\n### Message rate, %u B RDMA writes, window %d, +%s "
      "(wire: %.0f ns per message, %.0f ns to the completion; median of %d "
      "alternating repetitions)\n\n"
      "| mode | messages/s | of native | WR delay p50 | p99 | p50 beyond "
      "native |\n|---|---:|---:|---:|---:|---:|\n",
      o.size, o.window, units::FormatNs(o.latency_ns).c_str(), o.wire_msg_ns,
      o.wire_latency_ns, reps);
  const Mode modes[] = {Mode::kNative, Mode::kSpin, Mode::kDefer};
  std::vector<double> rates[3], delays[3];
  uint64_t looks = 0, by_thread = 0, posts = 0;
  for (int rep = 0; rep < reps; ++rep) {
    for (int m = 0; m < 3; ++m) {
      Result r = Run(o, modes[m], cal, m == 1 ? n / 8 : n, warm);
      if (modes[m] == Mode::kDefer) {
        looks += r.thread_looks;
        by_thread += r.thread_handed;
        posts += r.posts;
      }
      rates[m].push_back(r.msgs_per_s);
      delays[m].insert(delays[m].end(), r.delays_ns.begin(), r.delays_ns.end());
    }
  }
  double rate[3], p50[3];
  for (int m = 0; m < 3; ++m) {
    rate[m] = Percentile(rates[m], 0.5);
    p50[m] = Percentile(delays[m], 0.5);
    std::printf("| %s | %.0f | %.1f%% | %.3f us | %.3f us | %+.3f us |\n",
                Name(modes[m]), rate[m], 100 * rate[m] / rate[0], p50[m] / 1e3,
                Percentile(delays[m], 0.99) / 1e3, (p50[m] - p50[0]) / 1e3);
  }
  const double added = p50[2] - p50[0];
  std::printf(
      "\ndefer: %.1f%% of the native message rate (spin %.1f%%); each WR "
      "reached the provider %.3f us later than natively at the median "
      "(target %s: %+.2f%%)\n",
      100 * rate[2] / rate[0], 100 * rate[1] / rate[0], added / 1e3,
      units::FormatNs(o.latency_ns).c_str(),
      100 * (added - o.latency_ns) / o.latency_ns);
  // The application polls, so it hands its posts over; the thread is a
  // backup and should look far less often than once per post.
  std::printf(
      "defer's progress thread: %.1f looks per 1000 posts; it handed over "
      "%.2f%% of the posts\n",
      1000.0 * static_cast<double>(looks) / static_cast<double>(posts),
      100.0 * static_cast<double>(by_thread) / static_cast<double>(posts));
}

// Each law's injected delays, post to provider (spin, one post at a time),
// against the law itself: the KS distance over `n` posts.
void LawTable(const Opts& o, const emulate::TscCalibration& cal) {
  const size_t n = o.quick ? 20'000 : 100'000;
  const char* laws[] = {"normal(20us,4us)", "lognormal(20us,0.3)",
                        "uniform(10us,30us)", "pareto(10us,3)",
                        "replay:shim/testdata/rxe_lat64.json"};
  std::printf(
      "\n### Delay laws: injected delay per post against the law, %zu posts "
      "each (spin, one WR per ibv_post_send)\n\n| law | law's mean | "
      "measured mean | p50 | p99 | KS distance |\n|---|---:|---:|---:|---:|"
      "---:|\n",
      n);
  for (const char* text : laws) {
    std::string why;
    const auto law = emulate::ParseDelayDistribution(text, &why);
    if (!law) {
      std::printf("| %s | (%s: run from the repository's root) |\n", text,
                  why.c_str());
      continue;
    }
    ResetForTesting();
    Settings s;
    s.engine.latency = *law;
    s.engine.latency_ns = law->Mean();
    s.engine.seed = 1;
    ConfigureWithCalibration(s, cal);
    FakeDevice d("bench0");
    d.record_posts = false;
    FakeQpEnv e = MakeFakeQp(d, {.connect = true});
    ibv_sge sge{0x1000, 64, 1};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    std::vector<double> delays;
    delays.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      ibv_send_wr* bad = nullptr;
      const uint64_t t0 = ReadTsc();
      if (ibv_post_send(e.qp, &wr, &bad) != 0) std::abort();
      delays.push_back(cal.TicksToNs(d.last_post_tsc.load() - t0));
    }
    DestroyQp(e.qp);
    double sum = 0;
    for (double x : delays) sum += x;
    std::printf("| `%s` | %.3f us | %.3f us | %.3f us | %.3f us | %.4f |\n",
                text, law->Mean() / 1e3, sum / static_cast<double>(n) / 1e3,
                Percentile(delays, 0.5) / 1e3, Percentile(delays, 0.99) / 1e3,
                emulate::KsDistance(delays, *law));
  }
}

// ibv_poll_cq on an empty CQ in defer mode, nothing held and nothing
// synthesized, against the device's own poll on the same device: ns per
// call (min / median of interleaved repetitions). What defer adds to every
// poll of an application with nothing in flight.
void PollCostTable(const Opts& o, const emulate::TscCalibration& cal) {
  const size_t n = o.quick ? 200'000 : 1'000'000;
  const int reps = o.quick ? 5 : 11;
  ResetForTesting();
  Settings s;
  s.engine.latency_ns = o.latency_ns;
  s.engine.latency_mode = emulate::LatencyMode::kDefer;
  ConfigureWithCalibration(s, cal);
  FakeDevice d("bench0");
  d.null_ops = true;
  FakeQpEnv native = MakeFakeQp(d, {.through_shim = false, .connect = true});
  FakeQpEnv shim = MakeFakeQp(d, {.connect = true});
  ibv_wc wc[16];
  auto per_call = [&](ibv_cq* cq) {
    const uint64_t t0 = ReadTsc();
    for (size_t i = 0; i < n; ++i) ibv_poll_cq(cq, 16, wc);
    return cal.TicksToNs(ReadTsc() - t0) / static_cast<double>(n);
  };
  std::vector<double> a, b;
  for (int r = 0; r < reps; ++r) {
    a.push_back(per_call(native.cq));
    b.push_back(per_call(shim.cq));
  }
  const double amin = *std::min_element(a.begin(), a.end());
  const double bmin = *std::min_element(b.begin(), b.end());
  const double amed = Percentile(a, 0.5), bmed = Percentile(b, 0.5);
  std::printf(
      "\n### ibv_poll_cq in defer mode, empty CQ, nothing synthesized (%zu "
      "calls x %d interleaved repetitions, null device)\n\n"
      "| direct | through shim | defer's cost per poll |\n|---:|---:|---:|\n"
      "| %.2f / %.2f ns | %.2f / %.2f ns | %+.2f / %+.2f ns |\n",
      n, reps, amin, amed, bmin, bmed, bmin - amin, bmed - amed);
  DestroyQp(shim.qp);
}

bool ParseArgs(int argc, char** argv, Opts* o, int* cpu) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--quick") {
      o->quick = true;
    } else if (a == "--poll-only") {
      o->poll_only = true;
    } else if (a == "--cpu" && has_value) {
      *cpu = std::atoi(argv[++i]);
    } else if (a == "--window" && has_value) {
      o->window = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--latency" && has_value) {
      const auto ns = units::ParseDurationNs(argv[++i]);
      if (!ns) return false;
      o->latency_ns = *ns;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace verbsemu::shim::internal

int main(int argc, char** argv) {
  using namespace verbsemu::shim::internal;
  Opts o;
  int cpu = -1;
  if (!ParseArgs(argc, argv, &o, &cpu)) {
    std::fprintf(stderr,
                 "usage: %s [--quick] [--poll-only] [--cpu N] [--latency D] "
                 "[--window W]\n",
                 argv[0]);
    return 2;
  }
  if (cpu >= 0 && !verbsemu::emulate::PinToCpu(cpu)) {
    std::perror("sched_setaffinity");
  }
  SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
  const verbsemu::emulate::TscCalibration cal =
      verbsemu::emulate::CalibrateTsc();
  std::printf("## verbsemu latency-mode benchmark\n\nTSC %.4f GHz%s\n",
              cal.ticks_per_ns, cpu >= 0 ? ", pinned" : "");
  if (!o.poll_only) {
    RateTable(o, cal);
    LawTable(o, cal);
  }
  PollCostTable(o, cal);
  return 0;
}
