// One virtual link per NIC port: forked processes pacing
// on one port of the fake device together get the target rate, and when one
// of them is killed mid-run the others keep it. Prints a markdown table.
// Usage: shared_link_bench [--quick]
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/forked_poster.h"
#include "shim/internal/port_link.h"
#include "shim/internal/real_verbs.h"

namespace verbsemu::shim::internal {
namespace {

constexpr uint32_t kBytes = 65536;
constexpr double kTargetBps = 10e9;

// One row: `procs` posters, the first killed a quarter in when `kill`.
// Without a kill, the rate of every post from the first to the last; with
// one, of the posts after the killed process's last.
void Row(int procs, bool kill, int per, const emulate::TscCalibration& cal) {
  emulate::Config c;
  c.bandwidth = *emulate::ParseBandwidth("10Gbit/s");
  c.bw_mode = emulate::BwMode::kPace;
  c.link_bits_per_s = 100e9;
  Settings s;
  s.engine = c;
  ResetForTesting();
  TrafficPaths paths;
  paths.shm_prefix = "/verbsemu-bench-" + std::to_string(getpid());
  SetTrafficPathsForTesting(paths);
  ConfigureWithCalibration(s, cal);
  std::vector<ForkedPoster> posters;
  posters.reserve(static_cast<size_t>(procs));
  for (int i = 0; i < procs; ++i) {
    posters.push_back(
        ForkPoster("bench0", per, kBytes, kill && i == 0 ? per / 4 : 0));
  }
  std::vector<std::vector<uint64_t>> stamps;
  stamps.reserve(posters.size());
  for (const ForkedPoster& p : posters) {
    int status = 0;
    stamps.push_back(CollectStamps(p, &status));
  }
  if (stamps[0].empty()) {
    std::printf("| %d | - | (no posts) | | |\n", procs);
    return;
  }
  const uint64_t from = kill ? stamps[0].back() : 0;
  uint64_t first = UINT64_MAX, last = 0;
  size_t intervals = 0;
  for (const auto& each : stamps) {
    for (const uint64_t t : each) {
      if (t < from) continue;
      first = std::min(first, t);
      last = std::max(last, t);
      ++intervals;
    }
  }
  --intervals;  // n posts, n - 1 messages' time between the first and last
  const double bps = static_cast<double>(intervals) * kBytes * 8 /
                     (cal.TicksToNs(last - first) * 1e-9);
  std::printf("| %d | %s | %zu | %.4g Gbit/s | %+.2f |\n", procs,
              kill ? "one, a quarter in" : "none", intervals + 1, bps / 1e9,
              100.0 * (bps - kTargetBps) / kTargetBps);
  shm_unlink(LinkSegmentName(paths, "bench0", 1).c_str());
}

}  // namespace
}  // namespace verbsemu::shim::internal

int main(int argc, char** argv) {
  using namespace verbsemu::shim::internal;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  SetRealVerbsForTesting(FakeDevice::MakeRealVerbs());
  const verbsemu::emulate::TscCalibration cal =
      verbsemu::emulate::CalibrateTsc();
  std::printf(
      "## One link per NIC port: processes pacing together\n\n10 Gbit/s "
      "target on a 100 Gbit/s link, 64 KiB ibv_post_send, each process on "
      "its own context of one port.\n\n| processes | killed | posts | "
      "measured | error %% |\n|---:|---|---:|---:|---:|\n");
  const int per = quick ? 1000 : 4000;
  for (const int procs : {1, 2, 4}) Row(procs, false, per, cal);
  Row(4, true, per, cal);
  return 0;
}
