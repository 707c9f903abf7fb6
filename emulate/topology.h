// Per-destination link classes (VERBSEMU_TOPOLOGY=FILE): which added latency
// and bandwidth a connection gets, chosen by the addresses of its two ends.
// One file serves every node of a cluster, so each route names both ends:
// FROM (the local port) and TO (the peer, as the QP's ah_attr or a UD
// address handle gives it). docs/topology.md is the format's reference.
//
//   # comment; blank lines are ignored; tokens are split by spaces or tabs
//   class leaf   latency=1us
//   class spine  latency=3us  bandwidth=50%
//   route 10.0.1.0/24  10.0.1.0/24  leaf      # FROM TO CLASS
//   route *            *            spine
//
// - `class NAME KEY=VALUE...`: NAME is [A-Za-z0-9_.-]+ and unique; keys are
//   latency=DELAY (kept as text: the shim parses it as a delay distribution
//   and reports its errors with LinkClass::line) and bandwidth=RATE
//   (ParseBandwidth: "50%" or "25Gbit/s"; "100%" means native). At least one.
// - `route FROM TO CLASS`: the first route, in file order, whose FROM matches
//   the local port and whose TO matches the peer wins. A route is one-way:
//   the other end's sends match with FROM and TO swapped. CLASS may be
//   declared anywhere in the file, before or after the routes that use it.
// - Address patterns (AddressPattern::Parse): `*`; an IPv4 address or CIDR
//   (matches a RoCE GID holding it, ::ffff:a.b.c.d); an IPv6 address or
//   prefix, compared with the 16 GID bytes (a GID as rdma-core prints it,
//   fe80:0000:0000:0000:0002:c903:0000:1234, is IPv6 too); `lid:N` or
//   `lid:N-M` (unicast LIDs 1..0xbfff, decimal or 0x hex). An address or
//   prefix must not set bits beyond its prefix length (10.0.1.0/24, not
//   10.0.1.7/24), as that is usually a typo.
//
// Errors are one line, "line N: what is wrong; how to write it". The first
// error in the file stops the parse; a route naming an undeclared class is
// reported once the whole file has been read.
#ifndef VERBSEMU_EMULATE_TOPOLOGY_H_
#define VERBSEMU_EMULATE_TOPOLOGY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/config.h"

namespace verbsemu::emulate {

// One end of a connection, as verbs shows it; either part may be unknown
// (IB without a GRH has no GID, RoCE has no LID).
struct PortAddress {
  std::optional<std::array<uint8_t, 16>> gid;
  std::optional<uint16_t> lid;
};

struct LinkClass {
  std::string name;
  std::string latency;        // delay text as written, "" when unset
  BandwidthTarget bandwidth;  // kind kNone when unset (or 100%)
  int line = 0;               // where it was declared (for the shim's messages)
};

// One FROM or TO field of a route.
struct AddressPattern {
  enum class Kind { kAny, kGid, kLid };
  Kind kind = Kind::kAny;
  std::array<uint8_t, 16> gid{};   // kGid: the prefix, zero beyond its length
  std::array<uint8_t, 16> mask{};  // kGid: ones over the prefix length
  uint16_t lid_first = 0;          // kLid: inclusive range
  uint16_t lid_last = 0;

  // nullopt with `why` (a phrase without a line number) on anything else.
  static std::optional<AddressPattern> Parse(std::string_view text,
                                             std::string* why = nullptr);
  // A GID pattern never matches an address without a GID, a LID pattern
  // never one without a LID; `*` matches anything, even an empty address.
  bool Matches(const PortAddress& address) const;
};

class Topology {
 public:
  static std::optional<Topology> Parse(std::string_view text,
                                       std::string* why = nullptr);

  // The class of a connection from `local` to `peer`: an index into
  // classes(), or -1 when no route matches (the shim then applies the
  // global VERBSEMU_LATENCY and VERBSEMU_BANDWIDTH).
  int Match(const PortAddress& local, const PortAddress& peer) const;

  const std::vector<LinkClass>& classes() const { return classes_; }
  size_t routes() const { return routes_.size(); }

 private:
  struct Route {
    AddressPattern from;
    AddressPattern to;
    int link_class = -1;
  };

  std::vector<LinkClass> classes_;
  std::vector<Route> routes_;
};

// Reads and parses `path`. An unreadable file: `why` names the path and the
// system's reason; a parse error: "PATH: line N: ...".
std::optional<Topology> LoadTopology(const std::string& path,
                                     std::string* why = nullptr);

// "::ffff:10.0.1.7", "fe80::2:c903:0:1234" (inet_ntop), for reports.
std::string FormatGid(const std::array<uint8_t, 16>& gid);

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_TOPOLOGY_H_
