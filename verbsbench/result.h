// The typed result of a run, and the JSON of a measured distribution its
// modes' sections share; the whole-run JSON the writers (report.h), the
// test-bed suites, lopfit and loggpfit read is ToJson (mode.h).
#ifndef VERBSBENCH_RESULT_H_
#define VERBSBENCH_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/lop/contract.h"
#include "verbsbench/options.h"
#include "verbsbench/stats.h"

namespace verbsbench {

// One lat point: round trips (rtt/2; RDMA read: the whole rtt).
struct LatPoint {
  Op op = Op::kSend;
  size_t size = 0;
  bool inline_used = false;
  bool inline_requested = false;
  uint64_t iterations = 0;
  Recorder recorder;
};

// One bw point: a stream of `iterations` messages.
struct BwPoint {
  Op op = Op::kSend;
  size_t size = 0;
  bool inline_used = false;
  uint64_t iterations = 0;
  bool bidirectional = false;
  double elapsed_ns = 0;
  double peer_elapsed_ns = 0;
  Recorder recorder;
};

struct LopPoint {
  int p = 0;
  Recorder recorder;
};

// One measured lop curve (the derived latency curves are computed by
// ToJson from these, with lop::DeriveCurves).
struct LopCurve {
  std::string name;
  lop::Kind kind = lop::Kind::kRtt;
  std::string pattern;  // rtt: "1:n" / "n:1"
  std::string side;     // overhead: "send" / "recv"
  std::string op;
  bool is_inline = false;
  bool list = false;
  std::optional<size_t> size;
  std::vector<LopPoint> points;
};

// One loggp point: Netgauge's PRTT round trips at one message size, and
// o_r as the peer timed it.
struct LoggpPoint {
  Op op = Op::kSend;
  size_t size = 0;
  bool inline_used = false;
  uint64_t iterations = 0;
  double delay_ns = 0;  // d of PRTT(n,d,s)
  Recorder prtt_1_0, prtt_n_0, prtt_n_d, o_r;
};

struct Result {
  Options options;  // normalized
  bool peer = false;
  nlohmann::json device = nlohmann::json::object();
  nlohmann::json timer = nlohmann::json::object();
  // Version, command line, UTC time, kernel, rdma-core, CPU, how the ranks
  // met (rte/provenance.h); root and peers.
  nlohmann::json provenance = nlohmann::json::object();
  // Root: rank → host, pid, system and device, rank 0 (the root) first.
  nlohmann::json ranks = nlohmann::json::array();
  std::vector<LatPoint> lat;
  std::vector<BwPoint> bw;
  std::vector<LopCurve> lop;
  std::vector<LoggpPoint> loggp;
};

// What every lat and bw result has: the point and its samples ("stats", and
// "raw_ns" when the options keep raw samples).
nlohmann::json MeasuredJson(Op op, size_t size, bool inline_used,
                            uint64_t iterations, const Recorder& rec,
                            const Options& o);

// The statistics of one measured quantity, as lop points and loggp entries
// carry them (lop::key).
nlohmann::json StatJson(const Recorder& rec, const Options& o);

}  // namespace verbsbench

#endif  // VERBSBENCH_RESULT_H_
