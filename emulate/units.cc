#include "emulate/units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace verbsemu::units {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

constexpr std::array<Unit, 5> kDurationUnits = {{
    {"ns", 1},
    {"us", 1e3},
    {"\xc2\xb5s", 1e3},  // µs
    {"ms", 1e6},
    {"s", 1e9},
}};

constexpr std::array<Unit, 8> kSizeUnits = {{
    {"B", 1},
    {"K", 1024.0},
    {"KiB", 1024.0},
    {"M", 1048576.0},
    {"MiB", 1048576.0},
    {"G", 1073741824.0},
    {"GiB", 1073741824.0},
    {"T", 1099511627776.0},
}};

constexpr std::array<Unit, 17> kRateUnits = {{
    {"bit/s", 1},
    {"Kbit/s", 1e3},
    {"Mbit/s", 1e6},
    {"Gbit/s", 1e9},
    {"Tbit/s", 1e12},
    {"b/s", 1},
    {"Kb/s", 1e3},
    {"Mb/s", 1e6},
    {"Gb/s", 1e9},
    {"bps", 1},
    {"Kbps", 1e3},
    {"Mbps", 1e6},
    {"Gbps", 1e9},
    {"B/s", 8},
    {"KiB/s", 8.0 * 1024},
    {"MiB/s", 8.0 * 1048576},
    {"GiB/s", 8.0 * 1073741824},
}};

// Spellings that mean 1000 to some readers and 1024 to others.
struct Ambiguous {
  std::string_view suffix;
  std::string_view advice;
};
constexpr std::array<Ambiguous, 6> kAmbiguous = {{
    {"KB", "ambiguous: write KiB for 1024 bytes, or the number of bytes"},
    {"MB", "ambiguous: write MiB for 1048576 bytes, or the number of bytes"},
    {"GB", "ambiguous: write GiB for 2^30 bytes, or the number of bytes"},
    {"KB/s", "ambiguous: write KiB/s, or Kbit/s for 1000 bits per second"},
    {"MB/s", "ambiguous: write MiB/s, or Mbit/s for 1e6 bits per second"},
    {"GB/s", "ambiguous: write GiB/s, or Gbit/s for 1e9 bits per second"},
}};

void Say(std::string* why, std::string_view text) {
  if (why != nullptr) *why = std::string(text);
}

// Splits "12.5us" into 12.5 and "us": digits with at most one dot; no sign,
// no exponent, no spaces.
std::optional<std::pair<double, std::string_view>> SplitNumber(
    std::string_view text) {
  size_t i = 0;
  bool digits = false, dot = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  const std::string number(text.substr(0, i));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return std::make_pair(value, text.substr(i));
}

template <size_t N>
std::optional<double> WithUnit(std::string_view text,
                               const std::array<Unit, N>& units,
                               std::string_view expected, std::string* why) {
  const auto split = SplitNumber(text);
  if (!split) {
    Say(why,
        std::string("expected a number then a unit, ") + std::string(expected));
    return std::nullopt;
  }
  const auto [value, suffix] = *split;
  for (const Ambiguous& a : kAmbiguous) {
    if (suffix == a.suffix) {
      Say(why, a.advice);
      return std::nullopt;
    }
  }
  for (const Unit& u : units) {
    if (suffix != u.suffix) continue;
    if (!std::isfinite(value * u.scale)) {
      Say(why, "too large a number");
      return std::nullopt;
    }
    return value * u.scale;
  }
  Say(why, std::string(suffix.empty() ? "no unit" : "unknown unit") + ", " +
               std::string(expected));
  return std::nullopt;
}

}  // namespace

std::optional<double> ParseDurationNs(std::string_view text, std::string* why) {
  if (text == "0") return 0.0;
  return WithUnit(text, kDurationUnits, "such as 2us, 1500ns, 0.5ms, 1s", why);
}

std::optional<uint64_t> ParseBytes(std::string_view text, std::string* why) {
  const auto split = SplitNumber(text);
  const bool bare = split && split->second.empty();
  const std::optional<double> bytes =
      bare ? split->first
           : WithUnit(text, kSizeUnits, "such as 4096, 64K, 64KiB, 1MiB", why);
  if (!bytes) return std::nullopt;
  if (*bytes != std::floor(*bytes) || *bytes > 1e15) {
    Say(why, "not a whole number of bytes up to 1e15");
    return std::nullopt;
  }
  return static_cast<uint64_t>(*bytes);
}

std::optional<double> ParseBitsPerS(std::string_view text, std::string* why) {
  auto bps = WithUnit(text, kRateUnits,
                      "such as 25Gbit/s, 800Mbit/s, 3GiB/s, 100MiB/s", why);
  if (bps && (*bps < 1 || *bps > 1e15)) {
    Say(why, "a rate must be from 1bit/s to 1000Tbit/s");
    return std::nullopt;
  }
  return bps;
}

std::optional<double> ParsePercent(std::string_view text, std::string* why) {
  const auto split = SplitNumber(text);
  if (!split || split->second != "%" || split->first <= 0 ||
      split->first > 100) {
    Say(why, "expected a share of the link above 0% and at most 100%");
    return std::nullopt;
  }
  return split->first / 100.0;
}

namespace {

struct Scale {
  double at_least;  // the first scale whose threshold the value reaches
  double divisor;
  const char* unit;
};

// Six significant digits in plain notation, so the parsers (which take no
// exponent) read every output back. The scale is chosen after rounding:
// 999999.9bit/s prints as 1Mbit/s, never as 1e+06bit/s.
template <size_t N>
std::string FormatScaled(double value, const std::array<Scale, N>& scales) {
  char buf[512];  // room for any finite double in plain notation
  std::snprintf(buf, sizeof buf, "%.5e", value);
  const double rounded = std::strtod(buf, nullptr);
  for (const Scale& s : scales) {
    if (rounded < s.at_least && &s != &scales.back()) continue;
    const double scaled = rounded / s.divisor;
    const int whole_digits =
        scaled >= 1 ? static_cast<int>(std::floor(std::log10(scaled))) + 1 : 1;
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, 6 - whole_digits),
                  scaled);
    std::string out(buf);
    if (out.find('.') != std::string::npos) {
      out.erase(out.find_last_not_of('0') + 1);
      if (out.back() == '.') out.pop_back();
    }
    return out + s.unit;
  }
  return "";
}

}  // namespace

std::string FormatNs(double ns) {
  static constexpr std::array<Scale, 3> kScales = {
      {{1e6, 1e6, "ms"}, {1e3, 1e3, "us"}, {0, 1, "ns"}}};
  return FormatScaled(ns, kScales);
}

std::string FormatBitsPerS(double bits_per_s) {
  static constexpr std::array<Scale, 4> kScales = {{{1e12, 1e12, "Tbit/s"},
                                                    {1e9, 1e9, "Gbit/s"},
                                                    {1e6, 1e6, "Mbit/s"},
                                                    {0, 1, "bit/s"}}};
  return FormatScaled(bits_per_s, kScales);
}

}  // namespace verbsemu::units
