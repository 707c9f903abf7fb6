// The measurement contract of `verbsbench contend`, written once: what a
// contention measurement records and contentionfit reads. One JSON
// document (docs/contention.md, "The measurement file"):
//   {"schema": "verbsemu.contend/1",
//    "params": {"port_rate_Bps": 262144, "op": "write", "wr_size": 32768,
//               "window": 4, "seed": 1},
//    "ranks": [{"rank": 0, "host": "h0", "device": "rxe0", "port": 1}],
//    "graphs": [{"name": "fanout2", "graph": "a>b,a>c",
//                "canonical": "0>1,0>2", "vertices": {"a": 0, "b": 1, ...},
//                "edges": [{"bytes": 524288, "start_offset_ns": 0}, ...],
//                "runs": [{"rep": 0, "block": 0, "edges": [
//                   {"send_start_ns": 0, "send_end_ns": 2000000,
//                    "recv_start_ns": 0, "recv_end_ns": 2001000,
//                    "completions_ns": [62000, 124000, ...]}, ...]}]}]}
// Edges are numbered in the order of "graph"; times are nanoseconds after
// the run's common start. "completions_ns" (optional; `contend --steady`):
// when the sender saw each of the edge's WRs complete, in order, the k-th
// having carried min(k * wr_size, bytes).
#ifndef VERBSEMU_MODELS_CONTENTION_CONTEND_DATA_H_
#define VERBSEMU_MODELS_CONTENTION_CONTEND_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.h"

namespace verbsemu::contention {

inline constexpr char kContendSchema[] = "verbsemu.contend/1";
inline constexpr char kContendSchemaFamily[] = "verbsemu.contend/";

// Keys, for the writer and the reader.
namespace contend_key {
inline constexpr char kSchema[] = "schema";
inline constexpr char kParams[] = "params";
inline constexpr char kPortRate[] = "port_rate_Bps";
inline constexpr char kOp[] = "op";
inline constexpr char kWrSize[] = "wr_size";
inline constexpr char kWindow[] = "window";
inline constexpr char kSeed[] = "seed";
inline constexpr char kRanks[] = "ranks";
inline constexpr char kRank[] = "rank";
inline constexpr char kHost[] = "host";
inline constexpr char kDevice[] = "device";
inline constexpr char kPort[] = "port";
inline constexpr char kGraphs[] = "graphs";
inline constexpr char kName[] = "name";
inline constexpr char kGraph[] = "graph";
inline constexpr char kCanonical[] = "canonical";
inline constexpr char kVertices[] = "vertices";
inline constexpr char kEdges[] = "edges";
inline constexpr char kBytes[] = "bytes";
inline constexpr char kStartOffset[] = "start_offset_ns";
inline constexpr char kRuns[] = "runs";
inline constexpr char kRep[] = "rep";
inline constexpr char kBlock[] = "block";
inline constexpr char kSendStart[] = "send_start_ns";
inline constexpr char kSendEnd[] = "send_end_ns";
inline constexpr char kRecvStart[] = "recv_start_ns";
inline constexpr char kRecvEnd[] = "recv_end_ns";
inline constexpr char kCompletions[] = "completions_ns";
}  // namespace contend_key

// Reader limits (a measurement of hundreds of graphs fits easily).
inline constexpr std::size_t kMaxContendGraphs = 4096;
inline constexpr std::size_t kMaxContendRuns = 10000;
inline constexpr std::size_t kMaxContendRanks = 4096;
inline constexpr std::int64_t kMaxContendNs = std::int64_t{1} << 50;  // 13 d
inline constexpr std::size_t kMaxContendCompletions = std::size_t{1} << 16;
// A measurement file's size bound (the largest the limits above allow is
// well under it).
inline constexpr std::size_t kMaxContendFileBytes = std::size_t{256} << 20;

inline constexpr const char* kContendOps[] = {"write", "send", "read"};

struct ContendParams {
  double port_rate_Bps = 0;  // the port rate the run was meant to have
  std::string op = "write";  // one of kContendOps
  std::int64_t wr_size = 0;  // bytes per work request (0: not recorded)
  std::int64_t window = 0;   // work requests in flight per edge
  std::int64_t seed = 0;     // of the block order
};

struct RankInfo {
  int rank = 0;
  std::string host, device;
  int port = 1;
};

struct EdgePlan {
  std::int64_t bytes = 0;            // > 0
  std::int64_t start_offset_ns = 0;  // >= 0, after the common start
};

// One edge in one run, each side's own first post / last completion.
struct EdgeTiming {
  std::int64_t send_start_ns = 0, send_end_ns = 0;
  std::int64_t recv_start_ns = 0, recv_end_ns = 0;
  // Each WR's completion at the sender, in order, within [send_start_ns,
  // send_end_ns]; empty: not recorded.
  std::vector<std::int64_t> completions_ns{};
};

struct GraphRun {
  int rep = 0, block = 0;
  std::vector<EdgeTiming> edges;  // by edge index
};

struct MeasuredGraph {
  std::string name;
  Graph graph;
  std::string canonical;         // Canonicalize(graph).form
  std::vector<int> vertex_rank;  // by vertex index
  std::vector<EdgePlan> edges;   // by edge index
  std::vector<GraphRun> runs;
  // Every edge starts at 0 with the same size (what inversion needs).
  bool StaticSynchronous() const;
};

struct ContendData {
  ContendParams params;
  std::vector<RankInfo> ranks;
  std::vector<MeasuredGraph> graphs;
};

// The document in `text`; nullopt with one line in *why ("graphs[2].runs[0]:
// ...") when it is not JSON, another schema or version, or breaks the
// contract (a graph that does not parse, a wrong canonical form, counts
// that disagree, a time out of order).
std::optional<ContendData> ParseContend(std::string_view text,
                                        std::string* why);

// The document of `d` (which ParseContend would accept).
std::string WriteContend(const ContendData& d);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_CONTEND_DATA_H_
