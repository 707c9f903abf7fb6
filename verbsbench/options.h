// Parameters of one verbsbench run, independent of how they were given:
// typed (modes, connection managers, wait policies and operations are
// enums, each spelled once in a table), checked by Normalize (mode.h).
#ifndef VERBSBENCH_OPTIONS_H_
#define VERBSBENCH_OPTIONS_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enum_table.h"
#include "verbsbench/histogram.h"

namespace verbsbench {

// --raw-max's bound: a peer's result, raw samples and all, is one control
// message of at most 256 MiB (internal/line_buffer.h), about 25 bytes a
// sample.
inline constexpr uint64_t kMaxRawSamples = 8'000'000;

enum class Mode { kLat, kBw, kLop, kLoggp };
enum class Cm { kAuto, kRdmacm, kTcp };  // connection setup
// How to wait: spin (default), yield (sched_yield() between polls) or event
// (peers sleep on a completion channel for receives; the root spins;
// RDMA-write receivers, which poll memory, yield). Use yield/event when
// more processes poll than there are cores.
enum class Wait { kSpin, kYield, kEvent };
enum class Op { kSend, kWrite, kRead };
// How root and peers meet (UCX perf's rte): TCP rendezvous on --port, or MPI
// when a launcher (mpirun, srun) started the processes; auto picks MPI when
// the environment shows a launcher and no HOST is given (rte/launcher.h).
enum class Rte { kAuto, kTcp, kMpi };

}  // namespace verbsbench

// The one spelling of each enum value (base/enum_table.h).
namespace verbsemu::base {
template <>
struct EnumTable<verbsbench::Mode> {
  static constexpr std::array<std::pair<verbsbench::Mode, const char*>, 4>
      kRows = {{{verbsbench::Mode::kLat, "lat"},
                {verbsbench::Mode::kBw, "bw"},
                {verbsbench::Mode::kLop, "lop"},
                {verbsbench::Mode::kLoggp, "loggp"}}};
};
template <>
struct EnumTable<verbsbench::Cm> {
  static constexpr std::array<std::pair<verbsbench::Cm, const char*>, 3> kRows =
      {{{verbsbench::Cm::kAuto, "auto"},
        {verbsbench::Cm::kRdmacm, "rdmacm"},
        {verbsbench::Cm::kTcp, "tcp"}}};
};
template <>
struct EnumTable<verbsbench::Wait> {
  static constexpr std::array<std::pair<verbsbench::Wait, const char*>, 3>
      kRows = {{{verbsbench::Wait::kSpin, "spin"},
                {verbsbench::Wait::kYield, "yield"},
                {verbsbench::Wait::kEvent, "event"}}};
};
template <>
struct EnumTable<verbsbench::Rte> {
  static constexpr std::array<std::pair<verbsbench::Rte, const char*>, 3>
      kRows = {{{verbsbench::Rte::kAuto, "auto"},
                {verbsbench::Rte::kTcp, "tcp"},
                {verbsbench::Rte::kMpi, "mpi"}}};
};
template <>
struct EnumTable<verbsbench::Op> {
  static constexpr std::array<std::pair<verbsbench::Op, const char*>, 3> kRows =
      {{{verbsbench::Op::kSend, "send"},
        {verbsbench::Op::kWrite, "write"},
        {verbsbench::Op::kRead, "read"}}};
};

}  // namespace verbsemu::base

namespace verbsbench {

// The table's spellings (base/enum_table.h) under verbsbench's names.
template <class E>
constexpr const char* Name(E value) {
  return verbsemu::base::EnumName(value);
}
template <class E>
constexpr std::optional<E> Parse(std::string_view text) {
  return verbsemu::base::ParseEnum<E>(text);
}
// "lat, bw or lop": the accepted spellings, for error messages.
template <class E>
std::string Choices() {
  return std::string(verbsemu::base::kEnumChoices<E>);
}

struct Options {
  Mode mode = Mode::kLat;
  // Role: with `host` set this process is a peer (client) that serves the
  // root's commands; without, it is the root (server) that measures.
  std::string host;
  std::string bind;  // root: address to listen on ("" = any)
  uint16_t port = 18515;
  Cm cm = Cm::kAuto;
  std::string ib_dev;
  int ib_port = 1;
  int gid_index = -1;
  double timeout_s = 30;

  std::vector<Op> ops;
  std::vector<bool> inline_modes;  // false = normal, true = inline
  std::vector<size_t> sizes;
  uint64_t iters = 1000;
  uint64_t warmup = 100;
  double duration_s = 0;   // > 0: run each point for about this long
  uint64_t cycle = 1000;   // samples per cycle (per-cycle minimums)
  uint64_t raw_limit = 0;  // raw samples kept per result, <= kMaxRawSamples
  // Peaks closer than this (relative) are reported as one mode.
  double mode_resolution = kDefaultModeResolution;

  uint32_t window = 128;   // bw: tx depth
  uint32_t post_list = 1;  // bw: WRs per ibv_post_send
  uint32_t cq_mod = 16;    // bw: signal every cq_mod WRs
  bool bidirectional = false;

  Wait wait = Wait::kSpin;  // the root passes its choice to the peers

  // lop: P, peers to accept (root). 0 under --rte mpi: the launcher's
  // ranks − 1, filled in by the engine once MPI is up.
  int peers = 1;
  std::vector<int> p_values;  // lop: p values measured (default 1..P)

  // loggp: messages per PRTT train (Netgauge's n), and d of PRTT(n,d,s)
  // (0: per size, the larger of the median PRTT(1,0,s) and twice the gap).
  int loggp_n = 16;
  double loggp_delay_ns = 0;

  uint32_t max_inline = 256;
  uint32_t sq_depth = 128;
  uint32_t rq_depth = 256;

  Rte rte = Rte::kAuto;
  std::vector<std::string> argv;  // the command line, for the provenance

  bool is_peer() const { return !host.empty(); }
  nlohmann::json ToJson() const;
};

// "64", "4K", "1MiB" → bytes (the units parser: binary, "KB" refused);
// "1:4M" → powers of two from 1 to 4M. Throws std::invalid_argument with a
// one-line message.
std::vector<size_t> ParseSizes(const std::string& spec);
// --inline's "off" → {false}, "on" → {true}, "both" → {true, false}.
// Throws std::invalid_argument with a one-line message.
std::vector<bool> ParseInlineModes(const std::string& spec);
// "4" → {4}; "1:16" → 1..16; "1,2,4" → {1,2,4}.
std::vector<int> ParseIntRange(const std::string& spec);

}  // namespace verbsbench

#endif  // VERBSBENCH_OPTIONS_H_
