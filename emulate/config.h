// The emulation engine's settings: what to emulate, independent of where the
// text came from. The shim describes each setting once (settings/knobs.h) and
// fills this struct from the environment or the launcher's flags.
#ifndef VERBSEMU_EMULATE_CONFIG_H_
#define VERBSEMU_EMULATE_CONFIG_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/enum_table.h"
#include "emulate/delay_distribution.h"

namespace verbsemu::emulate {

enum class BwMode { kPad, kPace };
// How a latency is added: the posting thread spins until the deadline
// (InterSense), or the post returns at once and is handed to the provider
// at the deadline (keeps the message rate; shim/internal/defer.h).
enum class LatencyMode { kSpin, kDefer };
// What one gap schedule covers: each QP's posts, or every post on a port.
enum class GapScope { kQp, kPort };
// Which links a transfer crosses (docs/contention.md): its sending port's
// (egress) only, or also its receiving port's (ingress), so that an incast
// into a narrowed port shares the port's rate.
// `penalty`: each transfer at the rate the contention model gives it over
// the graph of the node's active transfers (shim/internal/fabric_flows.h).
enum class Fabric { kEgress, kLinks, kPenalty };

// A bandwidth target: absolute (bits/s) or a fraction of the real link.
struct BandwidthTarget {
  enum class Kind { kNone, kAbsolute, kFraction };
  Kind kind = Kind::kNone;
  double bits_per_s = 0;  // kAbsolute
  double fraction = 1;    // kFraction, in (0, 1]

  bool enabled() const { return kind != Kind::kNone; }
  // Target rate for a link of `real_bits_per_s`; 0 when unknown.
  double TargetBitsPerS(double real_bits_per_s) const;
};

struct Config {
  // The one-way latency's law (a constant, a distribution or a replayed
  // histogram) and its mean, which says whether there is one at all.
  DelayDistribution latency;
  double latency_ns = 0;
  // Draws are reproducible from it (VERBSEMU_SEED); the shim picks one
  // and reports it when none is given.
  std::optional<uint64_t> seed;
  BandwidthTarget bandwidth;
  LatencyMode latency_mode = LatencyMode::kSpin;
  BwMode bw_mode = BwMode::kPad;
  uint64_t pad_threshold_bytes = uint64_t{64} * 1024;
  double link_bits_per_s = 0;  // 0: from ibv_query_port
  // LogGP's o (send and receive side) and g: CPU time spun inside each
  // posting call per WR, and per receive completion a poll returns; the
  // least time between message starts on one schedule.
  double overhead_ns = 0;
  double recv_overhead_ns = 0;
  double gap_ns = 0;
  GapScope gap_scope = GapScope::kQp;
  Fabric fabric = Fabric::kEgress;

  bool emulating() const {
    return latency_ns > 0 || bandwidth.enabled() || overhead_ns > 0 ||
           recv_overhead_ns > 0 || gap_ns > 0;
  }
  bool pacing() const {
    return bandwidth.enabled() && bw_mode == BwMode::kPace;
  }
  bool deferring() const {
    return latency_mode == LatencyMode::kDefer && emulating();
  }
  bool padding() const {
    return bandwidth.enabled() && bw_mode == BwMode::kPad;
  }
};

// "40%" (a share of the link; 100% means no limit) or a rate such as
// "25Gbit/s" (emulate/units.h). nullopt with `why` set on anything else.
std::optional<BandwidthTarget> ParseBandwidth(std::string_view text,
                                              std::string* why = nullptr);
std::string FormatBandwidth(const BandwidthTarget& bw);

}  // namespace verbsemu::emulate

// The spellings of the modes (base::ParseEnum, base::EnumName): the knobs'
// values, usage lines and messages, and the report's names, all from here.
namespace verbsemu::base {
template <>
struct EnumTable<emulate::BwMode> {
  static constexpr std::array<std::pair<emulate::BwMode, const char*>, 2>
      kRows = {
          {{emulate::BwMode::kPad, "pad"}, {emulate::BwMode::kPace, "pace"}}};
};
template <>
struct EnumTable<emulate::LatencyMode> {
  static constexpr std::array<std::pair<emulate::LatencyMode, const char*>, 2>
      kRows = {{{emulate::LatencyMode::kSpin, "spin"},
                {emulate::LatencyMode::kDefer, "defer"}}};
};
template <>
struct EnumTable<emulate::GapScope> {
  static constexpr std::array<std::pair<emulate::GapScope, const char*>, 2>
      kRows = {
          {{emulate::GapScope::kQp, "qp"}, {emulate::GapScope::kPort, "port"}}};
};
template <>
struct EnumTable<emulate::Fabric> {
  static constexpr std::array<std::pair<emulate::Fabric, const char*>, 3>
      kRows = {{{emulate::Fabric::kEgress, "egress"},
                {emulate::Fabric::kLinks, "links"},
                {emulate::Fabric::kPenalty, "penalty"}}};
};
}  // namespace verbsemu::base

#endif  // VERBSEMU_EMULATE_CONFIG_H_
