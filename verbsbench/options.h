// Parameters of one verbsbench run, independent of how they were given.
#ifndef VERBSBENCH_OPTIONS_H_
#define VERBSBENCH_OPTIONS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verbsbench {

struct Options {
  std::string mode;  // lat | bw | lop
  // Role: with `host` set this process is a peer (client) that serves the
  // root's commands; without, it is the root (server) that measures.
  std::string host;
  std::string bind;  // root: address to listen on ("" = any)
  uint16_t port = 18515;
  std::string cm = "auto";  // auto | rdmacm | tcp
  std::string ib_dev;
  int ib_port = 1;
  int gid_index = -1;
  double timeout_s = 30;

  std::vector<std::string> ops;    // send | write | read
  std::vector<bool> inline_modes;  // false = normal, true = inline
  std::vector<size_t> sizes;
  uint64_t iters = 1000;
  uint64_t warmup = 100;
  double duration_s = 0;   // > 0: run each point for about this long
  uint64_t cycle = 1000;   // samples per cycle (per-cycle minimums)
  uint64_t raw_limit = 0;  // raw samples kept per result

  uint32_t window = 128;   // bw: tx depth
  uint32_t post_list = 1;  // bw: WRs per ibv_post_send
  uint32_t cq_mod = 16;    // bw: signal every cq_mod WRs
  bool bidirectional = false;

  // How to wait: "spin" (default), "yield" (sched_yield() between polls)
  // or "event" (peers sleep on a completion channel for receives; the root
  // spins; RDMA-write receivers, which poll memory, yield). Use yield/event
  // when more processes poll than there are cores (lop peers on one small
  // host). The root passes its choice to the peers.
  std::string wait = "spin";

  int peers = 1;              // lop: P, peers to accept (root)
  std::vector<int> p_values;  // lop: p values measured (default 1..P)

  uint32_t max_inline = 256;
  uint32_t sq_depth = 128;
  uint32_t rq_depth = 256;

  nlohmann::json ToJson() const;
};

// "64", "4K", "1M" → bytes; "1:4M" → powers of two from 1 to 4M. Throws
// std::invalid_argument with a one-line message.
std::vector<size_t> ParseSizes(const std::string& spec);
// "4" → {4}; "1:16" → 1..16; "1,2,4" → {1,2,4}.
std::vector<int> ParseIntRange(const std::string& spec);

}  // namespace verbsbench

#endif  // VERBSBENCH_OPTIONS_H_
