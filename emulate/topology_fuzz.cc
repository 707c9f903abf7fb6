// Fuzzes the topology parser: any text is accepted or refused with a
// printable one-line "line N: ..." reason, never a crash; an accepted topology
// has a route and a class, and Match only ever answers -1 or a class index.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "emulate/topology.h"

namespace {

using verbsemu::emulate::PortAddress;
using verbsemu::emulate::Topology;

// Addresses to match: a few fixed kinds, and one built from the input's
// own bytes so that the fuzzer can steer it into the prefixes it wrote.
PortAddress FromBytes(const uint8_t* data, size_t size) {
  std::array<uint8_t, 16> gid{};
  std::memcpy(gid.data(), data, size < gid.size() ? size : gid.size());
  const uint16_t lid =
      size >= 2 ? static_cast<uint16_t>(data[0] << 8 | data[1]) : uint16_t{1};
  return PortAddress{gid, lid};
}

void CheckMatches(const Topology& topology, const uint8_t* data, size_t size) {
  std::array<uint8_t, 16> mapped{};
  mapped[10] = mapped[11] = 0xff;
  mapped[12] = 10;
  mapped[15] = 7;
  const PortAddress addresses[] = {
      PortAddress{},
      PortAddress{mapped, std::nullopt},
      PortAddress{std::nullopt, uint16_t{7}},
      FromBytes(data, size),
      FromBytes(data + size / 2, size - size / 2),
  };
  const int classes = static_cast<int>(topology.classes().size());
  for (const PortAddress& local : addresses) {
    for (const PortAddress& peer : addresses) {
      const int found = topology.Match(local, peer);
      if (found < -1 || found >= classes) std::abort();
    }
  }
}

// The GID text in reports, read back as a pattern, matches that GID alone.
void CheckGidRoundTrip(const PortAddress& address) {
  const std::string text = verbsemu::emulate::FormatGid(*address.gid);
  const auto pattern = verbsemu::emulate::AddressPattern::Parse(text);
  if (!pattern || !pattern->Matches(address)) std::abort();
  PortAddress other = address;
  (*other.gid)[15] ^= 1;
  if (pattern->Matches(other)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto topology = Topology::Parse(text, &why);
  if (!topology) {
    // A refusal says where and why, on one line of printable text.
    if (why.rfind("line ", 0) != 0) std::abort();
    for (const char c : why) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();
    }
    return 0;
  }
  if (topology->routes() == 0 || topology->classes().empty()) std::abort();
  for (const auto& link_class : topology->classes()) {
    if (link_class.name.empty() || link_class.line < 1) std::abort();
  }
  CheckMatches(*topology, data, size);
  CheckGidRoundTrip(FromBytes(data, size));
  return 0;
}
