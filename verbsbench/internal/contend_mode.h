// `verbsbench contend`'s root and peers: every rank (the root too) is a
// vertex. The root expands the graph set, plans the QP slots, has every
// rank create its QPs and relays their endpoints, measures each peer's
// clock offset (Cristian), runs an untimed warm-up over every slot, then
// every graph in randomized complete blocks: per run it sends each rank
// its edges and the start time in that rank's clock, runs its own part and
// collects the others' timings. Messages (JSON on the control channel):
//   root → peer  contend_setup {slots, wr_size, window, timeout_s, yield,
//                               steady}
//   peer → root  contend_local {host, device, endpoints}
//   root → peer  contend_connect {endpoints}   peer → root contend_connected
//   root → peer  clock                         peer → root clock {now_ns}
//   root → peer  contend_run {t0_ns, edges}    peer → root contend_times
//   root → peer  quit
#ifndef VERBSBENCH_INTERNAL_CONTEND_MODE_H_
#define VERBSBENCH_INTERNAL_CONTEND_MODE_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/contention/contend_data.h"
#include "verbsbench/options.h"

namespace verbsbench::internal {

struct ContendOptions {
  std::vector<std::string> graphs;  // --graph: sets or graphs, in order
  bool closure = false;
  std::uint64_t seed = 1;
  int max_degree = 3;
  int reps = 5;
  std::int64_t bytes = 4 << 20;
  std::int64_t wr_size = 65536;
  int window = 4;
  std::int64_t lead_ns = 200000000;  // start time ahead of the root's now
  bool yield = false;
  bool steady = false;  // each WR's completion recorded (completions_ns)
};

// Runs contend: the root returns the measurement, a peer nullopt. `team`
// holds the rendezvous and device options (rte, port, bind, peers, HOST,
// -d, -i, -x, timeout). Throws std::runtime_error with one line.
std::optional<verbsemu::contention::ContendData> RunContend(
    const Options& team, const ContendOptions& c, std::ostream& progress);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_CONTEND_MODE_H_
