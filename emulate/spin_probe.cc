// How late a calibrated TSC spin ends on this machine, and why (the
// shim's spin ran long in the QEMU TCG test bed). For each relax variant
// (`pause` in the loop, or none) it spins --spins times to --target and
// records per spin: the lateness (last reading minus the deadline), the
// loop's iterations, the longest gap between two consecutive TSC readings
// (a spin that lost the CPU, to an interrupt, the guest's scheduler or the
// host's, shows it as one long gap), and whether the guest kernel switched
// the thread out meanwhile (getrusage, read outside the timed spin). The
// CPU's interrupt and softirq counts over the run come from /proc.
// Usage: spin_probe [--target 20us] [--spins 20000] [--cpu N] [--relax
// both|pause|none]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "emulate/tsc.h"
#include "emulate/units.h"

namespace verbsemu::emulate {
namespace {

struct Options {
  double target_ns = 20'000;
  int spins = 20'000;
  int cpu = -1;
  std::string relax = "both";
};

struct Spin {
  double late_ns;
  double max_gap_ns;
  uint64_t iterations;
  bool switched;  // the guest kernel switched the thread out meanwhile
};

long ContextSwitches() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nvcsw + ru.ru_nivcsw;
}

// Sum of one CPU's column over every line of /proc/interrupts or
// /proc/softirqs (both: a header of CPU names, then "NAME: n0 n1 ...").
long long ProcCount(const char* path, int cpu) {
  std::ifstream in(path);
  std::string header;
  if (cpu < 0 || !std::getline(in, header)) return -1;
  long long total = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    long long v = 0;
    int column = 0;
    while (column <= cpu && (fields >> v)) ++column;
    if (column > cpu) total += v;
  }
  return total;
}

template <bool kPause>
Spin SpinOnce(uint64_t target_ticks, const TscCalibration& cal) {
  const long switches = ContextSwitches();
  const uint64_t start = ReadTsc();
  const uint64_t deadline = start + target_ticks;
  uint64_t prev = start, max_gap = 0, iterations = 0;
  uint64_t now = start;
  while (now < deadline) {
    if constexpr (kPause) CpuRelax();
    now = ReadTsc();
    max_gap = std::max(max_gap, now - prev);
    prev = now;
    ++iterations;
  }
  return {cal.TicksToNs(now - deadline), cal.TicksToNs(max_gap), iterations,
          ContextSwitches() != switches};
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(
      v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

void Report(const char* relax, const std::vector<Spin>& spins, double target_ns,
            long long irqs, long long softirqs) {
  std::vector<double> late;
  double sum_late = 0, late_in_gaps = 0, late_switched = 0, iters = 0;
  int gapped = 0, switched = 0;
  for (const Spin& s : spins) {
    late.push_back(s.late_ns);
    sum_late += s.late_ns;
    iters += static_cast<double>(s.iterations);
    // A spin that lost the CPU for over 1 us: its lateness is that gap's.
    if (s.max_gap_ns > 1000) {
      ++gapped;
      late_in_gaps += s.late_ns;
    }
    if (s.switched) {
      ++switched;
      late_switched += s.late_ns;
    }
  }
  const double n = static_cast<double>(spins.size());
  const double mean = sum_late / n;
  std::printf(
      "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.2f | %d (%.0f%%) | "
      "%d (%.0f%%) | %lld | %lld |\n",
      relax, iters > 0 ? target_ns * n / iters : 0, Quantile(late, 0.5),
      Quantile(late, 0.99), Quantile(late, 0.999),
      *std::max_element(late.begin(), late.end()), mean, 100 * mean / target_ns,
      gapped, sum_late > 0 ? 100 * late_in_gaps / sum_late : 0, switched,
      sum_late > 0 ? 100 * late_switched / sum_late : 0, irqs, softirqs);
}

template <bool kPause>
void Run(const char* relax, const Options& o, const TscCalibration& cal) {
  std::vector<Spin> spins;
  spins.reserve(static_cast<size_t>(o.spins));
  const uint64_t target = cal.NsToTicks(o.target_ns);
  for (int i = 0; i < 100; ++i) SpinOnce<kPause>(target, cal);  // warm up
  const long long irq0 = ProcCount("/proc/interrupts", o.cpu);
  const long long soft0 = ProcCount("/proc/softirqs", o.cpu);
  for (int i = 0; i < o.spins; ++i) {
    spins.push_back(SpinOnce<kPause>(target, cal));
  }
  const long long irq1 = ProcCount("/proc/interrupts", o.cpu);
  const long long soft1 = ProcCount("/proc/softirqs", o.cpu);
  Report(relax, spins, o.target_ns, irq0 < 0 ? -1 : irq1 - irq0,
         soft0 < 0 ? -1 : soft1 - soft0);
}

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "spin_probe: %s\nusage: spin_probe [--target 20us] [--spins "
               "20000] [--cpu N] [--relax both|pause|none]\n",
               why.c_str());
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) Usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--target") {
      std::string why;
      const auto ns = units::ParseDurationNs(v, &why);
      if (!ns || *ns <= 0) Usage("--target: " + why);
      o.target_ns = *ns;
    } else if (a == "--spins") {
      o.spins = std::atoi(v.c_str());
      if (o.spins <= 0) Usage("--spins needs a positive count, not " + v);
    } else if (a == "--cpu") {
      o.cpu = std::atoi(v.c_str());
    } else if (a == "--relax") {
      if (v != "both" && v != "pause" && v != "none") {
        Usage("--relax takes both, pause or none, not " + v);
      }
      o.relax = v;
    } else {
      Usage("unknown option " + a);
    }
  }
  return o;
}

}  // namespace
}  // namespace verbsemu::emulate

int main(int argc, char** argv) {
  using namespace verbsemu::emulate;
  const Options o = Parse(argc, argv);
  if (o.cpu >= 0 && !PinToCpu(o.cpu)) {
    Usage("cannot pin to CPU " + std::to_string(o.cpu));
  }
  const TscCalibration cal = CalibrateTsc();
  std::printf("TSC %.4f GHz, hypervisor '%s', spin fixed cost %.0f ns\n\n",
              cal.ticks_per_ns, HypervisorVendor().c_str(),
              cal.TicksToNs(cal.spin_fixed_cost_ticks));
  std::printf(
      "| relax | ns/iteration | late p50 ns | p99 | p99.9 | max | mean | mean "
      "%% of target | spins with a gap > 1 us (their share of the lateness) "
      "| spins switched out (share) | irqs on cpu | softirqs on cpu |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  if (o.relax != "none") Run<true>("pause", o, cal);
  if (o.relax != "pause") Run<false>("none", o, cal);
  return 0;
}
