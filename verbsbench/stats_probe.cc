// Prints the figures docs/verbsbench.md quotes for the timer and the modes,
// on this host, without an RDMA device: the cost of a timed point with and
// without its CPU number, how far CLOCK_MONOTONIC runs from the raw clock
// the TSC is calibrated against, and which peak gaps --mode-resolution
// merges or separates.
//   bazel run //verbsbench:stats_probe [-- SECONDS]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "verbsbench/stats.h"
#include "verbsbench/timer.h"

namespace verbsbench {
namespace {

// Back-to-back reads, `read` returning ticks: {min, median} in ticks.
template <class Read>
std::pair<uint64_t, uint64_t> BackToBack(Read read) {
  std::vector<uint64_t> d(1'000'000);
  for (uint64_t& v : d) {
    const uint64_t t0 = read();
    v = read() - t0;
  }
  std::sort(d.begin(), d.end());
  return {d.front(), d[d.size() / 2]};
}

void PrintTimerCost(const Timer& timer) {
  std::printf("TSC %.4f GHz; back-to-back reads, 3 rounds of 1e6:\n",
              timer.hz() / 1e9);
  for (int round = 0; round < 3; ++round) {
    const auto plain = BackToBack(verbsemu::emulate::ReadTscOrdered);
    const auto stamp = BackToBack([] { return ReadStamp().ticks; });
    std::printf(
        "  rdtscp+lfence min %.1f ns median %.1f ns | with the CPU (Stamp) "
        "min %.1f ns median %.1f ns\n",
        timer.TicksToNs(plain.first), timer.TicksToNs(plain.second),
        timer.TicksToNs(stamp.first), timer.TicksToNs(stamp.second));
  }
}

int64_t ClockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void PrintClockSlew(int seconds) {
  const int64_t m0 = ClockNs(CLOCK_MONOTONIC),
                r0 = ClockNs(CLOCK_MONOTONIC_RAW);
  const timespec wait{seconds, 0};
  nanosleep(&wait, nullptr);
  const int64_t m1 = ClockNs(CLOCK_MONOTONIC),
                r1 = ClockNs(CLOCK_MONOTONIC_RAW);
  std::printf(
      "CLOCK_MONOTONIC against CLOCK_MONOTONIC_RAW over %d s: rate %+.2f ppm, "
      "offset %.3f ms\n",
      seconds,
      1e6 * (static_cast<double>(m1 - m0) / static_cast<double>(r1 - r0) - 1),
      static_cast<double>(m1 - r1) / 1e6);
}

// Modes found in two equal normal peaks (sd `sd`, relative) `gap` apart,
// the first at one of 8 places spread over 10%.
size_t ModesOf(double resolution, double sd, double gap, int place) {
  std::mt19937_64 rng(static_cast<uint64_t>(place));
  const double base = 4000 * (1 + 0.1 * place / 8.0);
  std::normal_distribution<double> a(base, base * sd);
  std::normal_distribution<double> b(base * (1 + gap), base * sd);
  LogHistogram h;
  for (int i = 0; i < 40000; ++i) h.Add(i % 2 ? a(rng) : b(rng));
  return h.Modes(resolution).size();
}

void PrintModeResolution() {
  std::printf("two equal peaks (sd 0.2%% and 0.5%%, 8 placings each):\n");
  for (double resolution : {0.02, 0.04, 0.1, 0.2, 0.4}) {
    double always_one = 0, always_two = -1;
    for (double gap = 0; gap < 2 * resolution + 0.05; gap += 0.0025) {
      int ones = 0, twos = 0;
      for (double sd : {0.002, 0.005}) {
        for (int place = 0; place < 8; ++place) {
          const size_t n = ModesOf(resolution, sd, gap, place);
          ones += n == 1;
          twos += n == 2;
        }
      }
      if (ones == 16) always_one = gap;
      if (twos == 16 && always_two < 0) always_two = gap;
      if (twos != 16) always_two = -1;
    }
    std::printf(
        "  --mode-resolution %.2f: one mode up to a gap of %.2f%%, two from "
        "%.2f%%\n",
        resolution, 100 * always_one, 100 * always_two);
  }
}

}  // namespace
}  // namespace verbsbench

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 10;
  const verbsbench::Timer timer = verbsbench::Timer::Calibrate();
  verbsbench::PrintTimerCost(timer);
  verbsbench::PrintClockSlew(seconds > 0 ? seconds : 10);
  verbsbench::PrintModeResolution();
  return 0;
}
