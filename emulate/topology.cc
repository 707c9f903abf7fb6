#include "emulate/topology.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "base/read_file.h"

namespace verbsemu::emulate {
namespace {

constexpr unsigned kMaxUnicastLid = 0xbfff;
// A topology names subnets, not every pair of nodes: this is generous and
// keeps a mistaken path (a device, a log) from being read whole.
constexpr size_t kMaxFileBytes = size_t{16} << 20;

constexpr std::string_view kSpace = " \t\r";  // \r: files edited on Windows
constexpr std::string_view kPatternForms =
    "write *, an IPv4 address or CIDR (10.0.1.7, 10.0.1.0/24), an IPv6 "
    "address or prefix (fe80::/64, or a GID such as "
    "fe80:0000:0000:0000:0002:c903:0000:1234), or lid:N or lid:N-M";
constexpr std::string_view kLineForms =
    "a line is 'class NAME latency=DELAY bandwidth=RATE' (either setting or "
    "both) or 'route FROM TO CLASS'; # starts a comment";

std::nullopt_t Refuse(std::string* why, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return std::nullopt;
}

// User text for a message: control bytes escaped so that the message stays
// one readable line, and a runaway token cut short.
std::string Printable(std::string_view text) {
  constexpr size_t kShown = 80;
  std::string printable;
  for (const char c : text.substr(0, kShown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      printable += c;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      printable += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
    }
  }
  return text.size() > kShown ? printable + "..." : printable;
}

std::string Quoted(std::string_view text) {
  return "'" + Printable(text) + "'";
}

// Whole text, decimal, or hex after 0x; values too large to hold read as the
// largest unsigned, so that range checks report them as out of range.
std::optional<unsigned> ParseUnsigned(std::string_view text, bool allow_hex) {
  int base = 10;
  if (allow_hex && text.size() > 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  unsigned value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value, base);
  if (ec == std::errc::result_out_of_range && stop == end) {
    return std::numeric_limits<unsigned>::max();
  }
  if (ec != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::optional<uint16_t> ParseLid(std::string_view number,
                                 std::string_view pattern, std::string* why) {
  const auto value = ParseUnsigned(number, /*allow_hex=*/true);
  if (!value) {
    return Refuse(why, Quoted(pattern) +
                           " is not a LID or LID range: write lid:N or "
                           "lid:N-M, decimal or 0x hex (lid:7, lid:1-16, "
                           "lid:0x10-0x1f)");
  }
  if (*value < 1 || *value > kMaxUnicastLid) {
    return Refuse(why, Quoted(pattern) + ": LID " + Printable(number) +
                           " is out of range: unicast LIDs are 1 to 49151 "
                           "(0xbfff)");
  }
  return static_cast<uint16_t>(*value);
}

std::optional<AddressPattern> ParseLidPattern(std::string_view text,
                                              std::string* why) {
  const std::string_view range = text.substr(text.find(':') + 1);
  const size_t dash = range.find('-');
  const std::string_view first_text = range.substr(0, dash);
  const std::string_view last_text =
      dash == std::string_view::npos ? first_text : range.substr(dash + 1);
  const auto first = ParseLid(first_text, text, why);
  if (!first) return std::nullopt;
  const auto last = ParseLid(last_text, text, why);
  if (!last) return std::nullopt;
  if (*last < *first) {
    return Refuse(why, Quoted(text) +
                           " is an empty range: write the lower LID first "
                           "(lid:" +
                           std::string(last_text) + "-" +
                           std::string(first_text) + ")");
  }
  AddressPattern pattern;
  pattern.kind = AddressPattern::Kind::kLid;
  pattern.lid_first = *first;
  pattern.lid_last = *last;
  return pattern;
}

std::array<uint8_t, 16> PrefixMask(unsigned bits) {
  std::array<uint8_t, 16> mask{};
  for (unsigned i = 0; i < mask.size() && bits > 0; ++i) {
    const unsigned here = std::min(bits, 8u);
    mask[i] = static_cast<uint8_t>(0xff00u >> here);
    bits -= here;
  }
  return mask;
}

// The 16 GID bytes of an IPv4 (as ::ffff:a.b.c.d) or IPv6 address.
bool GidBytes(std::string_view address, bool is_ipv4,
              std::array<uint8_t, 16>* gid) {
  // inet_pton reads up to a NUL: refuse anything but its own characters
  // first, so that an embedded NUL cannot end the address early.
  const std::string_view allowed =
      is_ipv4 ? "0123456789." : "0123456789abcdefABCDEF:.";
  if (address.empty() ||
      address.find_first_not_of(allowed) != std::string_view::npos) {
    return false;
  }
  const std::string text(address);
  *gid = {};
  if (!is_ipv4) return inet_pton(AF_INET6, text.c_str(), gid->data()) == 1;
  (*gid)[10] = (*gid)[11] = 0xff;
  return inet_pton(AF_INET, text.c_str(), gid->data() + 12) == 1;
}

std::string NetworkText(const std::array<uint8_t, 16>& gid, bool is_ipv4) {
  if (!is_ipv4) return FormatGid(gid);
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, gid.data() + 12, text, sizeof text);
  return text;
}

std::optional<AddressPattern> ParseGidPattern(std::string_view text,
                                              std::string* why) {
  const size_t slash = text.find('/');
  const std::string_view address = text.substr(0, slash);
  const bool is_ipv4 = address.find(':') == std::string_view::npos;
  const unsigned max_bits = is_ipv4 ? 32 : 128;
  AddressPattern pattern;
  pattern.kind = AddressPattern::Kind::kGid;
  if (!GidBytes(address, is_ipv4, &pattern.gid)) {
    return Refuse(why, Quoted(text) + " is not an address pattern: " +
                           std::string(kPatternForms));
  }
  unsigned bits = max_bits;
  if (slash != std::string_view::npos) {
    const std::string_view length = text.substr(slash + 1);
    const auto parsed = ParseUnsigned(length, /*allow_hex=*/false);
    if (!parsed || *parsed > max_bits) {
      return Refuse(why,
                    Quoted(text) + ": prefix length /" + Printable(length) +
                        (parsed ? " is out of range" : " is not a number") +
                        ": an " +
                        (is_ipv4 ? "IPv4 prefix is /0 to /32"
                                 : "IPv6 prefix is /0 to /128"));
    }
    bits = *parsed;
  }
  pattern.mask = PrefixMask(is_ipv4 ? bits + 96 : bits);
  std::array<uint8_t, 16> network{};
  for (size_t i = 0; i < network.size(); ++i) {
    network[i] = pattern.gid[i] & pattern.mask[i];
  }
  if (network != pattern.gid) {
    return Refuse(why, Quoted(text) + " sets bits beyond its /" +
                           std::to_string(bits) + " prefix: write " +
                           NetworkText(network, is_ipv4) + "/" +
                           std::to_string(bits));
  }
  return pattern;
}

bool IsClassName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  });
}

std::vector<std::string_view> Tokens(std::string_view line) {
  line = line.substr(0, line.find('#'));
  std::vector<std::string_view> tokens;
  size_t start = line.find_first_not_of(kSpace);
  while (start != std::string_view::npos) {
    const size_t end = line.find_first_of(kSpace, start);
    tokens.push_back(line.substr(start, end - start));
    start = line.find_first_not_of(kSpace, end);
  }
  return tokens;
}

// What the file says, before route classes are resolved to indices; the
// views point into the text being parsed.
struct RouteLine {
  AddressPattern from;
  AddressPattern to;
  std::string_view class_name;
  int line = 0;
};

struct ParseState {
  std::vector<LinkClass> classes;
  std::unordered_map<std::string_view, int> class_index;
  std::vector<RouteLine> routes;
};

// One KEY=VALUE of a class line into `link_class`.
bool ApplyClassSetting(std::string_view setting, LinkClass* link_class,
                       bool* bandwidth_set, std::string* error) {
  const size_t equals = setting.find('=');
  const std::string_view key = setting.substr(0, equals);
  const std::string_view value = equals == std::string_view::npos
                                     ? std::string_view()
                                     : setting.substr(equals + 1);
  if (key != "latency" && key != "bandwidth") {
    *error = Quoted(setting) +
             " is not a class setting: write latency=DELAY (2us, "
             "normal(3us,0.3us)) or bandwidth=RATE (50%, 25Gbit/s)";
    return false;
  }
  if (key == "latency" ? !link_class->latency.empty() : *bandwidth_set) {
    *error = std::string(key) + " is given twice in class " +
             Quoted(link_class->name) + ": give it once";
    return false;
  }
  if (value.empty()) {
    *error = std::string(key) + " has no value: write " + std::string(key) +
             "=VALUE with no spaces around =";
    return false;
  }
  if (key == "latency") {
    link_class->latency = std::string(value);
    return true;
  }
  std::string reason;
  const auto bandwidth = ParseBandwidth(value, &reason);
  if (!bandwidth) {
    *error = "bandwidth " + Quoted(value) + " is not accepted: " + reason +
             "; a class's bandwidth is a share (50%) or a rate (25Gbit/s)";
    return false;
  }
  link_class->bandwidth = *bandwidth;
  *bandwidth_set = true;
  return true;
}

bool AddClass(const std::vector<std::string_view>& tokens, int line,
              ParseState* state, std::string* error) {
  if (tokens.size() < 2 || tokens[1].find('=') != std::string_view::npos) {
    *error =
        "'class' needs a NAME before its settings: class NAME "
        "latency=DELAY bandwidth=RATE, e.g. class leaf latency=1us";
    return false;
  }
  const std::string_view name = tokens[1];
  if (!IsClassName(name)) {
    *error = "class name " + Quoted(name) +
             " is not accepted: use letters, digits, _ . and - only";
    return false;
  }
  if (const auto seen = state->class_index.find(name);
      seen != state->class_index.end()) {
    *error = "class " + Quoted(name) + " is already declared at line " +
             std::to_string(state->classes[seen->second].line) +
             ": class names are unique";
    return false;
  }
  if (tokens.size() == 2) {
    *error = "class " + Quoted(name) +
             " sets nothing: give latency=DELAY and/or bandwidth=RATE, e.g. "
             "class " +
             std::string(name) + " latency=1us";
    return false;
  }
  LinkClass link_class;
  link_class.name = std::string(name);
  link_class.line = line;
  bool bandwidth_set = false;
  for (size_t i = 2; i < tokens.size(); ++i) {
    if (!ApplyClassSetting(tokens[i], &link_class, &bandwidth_set, error)) {
      return false;
    }
  }
  state->class_index.emplace(name, static_cast<int>(state->classes.size()));
  state->classes.push_back(std::move(link_class));
  return true;
}

bool ParseField(std::string_view field, std::string_view text,
                AddressPattern* pattern, std::string* error) {
  std::string reason;
  const auto parsed = AddressPattern::Parse(text, &reason);
  if (!parsed) {
    *error = std::string(field) + " " + reason;
    return false;
  }
  *pattern = *parsed;
  return true;
}

bool AddRoute(const std::vector<std::string_view>& tokens, int line,
              ParseState* state, std::string* error) {
  if (tokens.size() < 4) {
    *error = "'route' needs three fields, FROM TO CLASS, and has " +
             std::to_string(tokens.size() - 1) +
             ": e.g. route 10.0.1.0/24 10.0.1.0/24 leaf";
    return false;
  }
  if (tokens.size() > 4) {
    *error = "'route' takes three fields, FROM TO CLASS; " + Quoted(tokens[4]) +
             " is one too many (# starts a comment)";
    return false;
  }
  if (!IsClassName(tokens[3])) {
    *error = "CLASS " + Quoted(tokens[3]) +
             " is not a class name: use letters, digits, _ . and - only";
    return false;
  }
  RouteLine route;
  route.line = line;
  route.class_name = tokens[3];
  if (!ParseField("FROM", tokens[1], &route.from, error) ||
      !ParseField("TO", tokens[2], &route.to, error)) {
    return false;
  }
  state->routes.push_back(route);
  return true;
}

bool ParseLine(std::string_view line_text, int line, ParseState* state,
               std::string* error) {
  const std::vector<std::string_view> tokens = Tokens(line_text);
  if (tokens.empty()) return true;
  if (tokens[0] == "class") return AddClass(tokens, line, state, error);
  if (tokens[0] == "route") return AddRoute(tokens, line, state, error);
  *error =
      "unknown keyword " + Quoted(tokens[0]) + ": " + std::string(kLineForms);
  return false;
}

std::string DeclaredClasses(const std::vector<LinkClass>& classes) {
  if (classes.empty()) return "none is declared";
  constexpr size_t kListed = 8;  // enough to spot a typo, short enough to read
  std::string names = "declared:";
  for (size_t i = 0; i < classes.size() && i < kListed; ++i) {
    names += " " + classes[i].name;
  }
  return classes.size() > kListed ? names + " ..." : names;
}

std::string LinePrefix(int line) {
  return "line " + std::to_string(line) + ": ";
}

}  // namespace

std::optional<AddressPattern> AddressPattern::Parse(std::string_view text,
                                                    std::string* why) {
  if (text == "*") return AddressPattern();
  if (text.substr(0, 4) == "lid:") return ParseLidPattern(text, why);
  if (text.find_first_of(".:") != std::string_view::npos) {
    return ParseGidPattern(text, why);
  }
  return Refuse(why, Quoted(text) + " is not an address pattern: " +
                         std::string(kPatternForms));
}

bool AddressPattern::Matches(const PortAddress& address) const {
  switch (kind) {
    case Kind::kAny:
      return true;
    case Kind::kLid:
      return address.lid && *address.lid >= lid_first &&
             *address.lid <= lid_last;
    case Kind::kGid:
      if (!address.gid) return false;
      for (size_t i = 0; i < gid.size(); ++i) {
        if (((*address.gid)[i] & mask[i]) != gid[i]) return false;
      }
      return true;
  }
  return false;
}

std::optional<Topology> Topology::Parse(std::string_view text,
                                        std::string* why) {
  ParseState state;
  std::string error;
  int line = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    ++line;
    if (!ParseLine(text.substr(start, end - start), line, &state, &error)) {
      return Refuse(why, LinePrefix(line) + error);
    }
    start = end + 1;
  }
  if (state.routes.empty()) {
    return Refuse(why, LinePrefix(std::max(line, 1)) +
                           (state.classes.empty() ? "the file is empty"
                                                  : "the file has no routes") +
                           ": a topology needs at least one 'route FROM TO "
                           "CLASS' and a 'class NAME latency=DELAY' for it");
  }
  Topology topology;
  for (const RouteLine& route : state.routes) {
    const auto found = state.class_index.find(route.class_name);
    if (found == state.class_index.end()) {
      return Refuse(why, LinePrefix(route.line) + "unknown class " +
                             Quoted(route.class_name) + " (" +
                             DeclaredClasses(state.classes) +
                             "): declare it with 'class " +
                             std::string(route.class_name) +
                             " latency=DELAY' anywhere in the file");
    }
    topology.routes_.push_back({route.from, route.to, found->second});
  }
  topology.classes_ = std::move(state.classes);
  return topology;
}

int Topology::Match(const PortAddress& local, const PortAddress& peer) const {
  for (const Route& route : routes_) {
    if (route.from.Matches(local) && route.to.Matches(peer)) {
      return route.link_class;
    }
  }
  return -1;
}

std::optional<Topology> LoadTopology(const std::string& path,
                                     std::string* why) {
  std::string text;
  std::string error;
  if (!base::ReadFileText(path, kMaxFileBytes, &text, &error)) {
    if (error.find("larger than") != std::string::npos) {
      error +=
          "; a topology names subnets (CIDR prefixes, LID ranges), not "
          "every node";
    }
    return Refuse(why, "cannot read topology file " + path + ": " + error);
  }
  auto topology = Topology::Parse(text, &error);
  if (!topology) return Refuse(why, path + ": " + error);
  return topology;
}

std::string FormatGid(const std::array<uint8_t, 16>& gid) {
  char text[INET6_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET6, gid.data(), text, sizeof text);
  return text;
}

}  // namespace verbsemu::emulate
