#include "emulate/config.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace verbsemu::emulate {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

// Splits "12.5us" into 12.5 and "us"; rejects signs, exponents, spaces.
std::optional<std::pair<double, std::string_view>> SplitNumber(
    std::string_view text) {
  size_t i = 0;
  bool digits = false, dot = false;
  while (i < text.size()) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
    ++i;
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

std::optional<double> ParseWithUnits(std::string_view text,
                                     const std::vector<Unit>& units,
                                     bool bare_zero_ok) {
  auto split = SplitNumber(text);
  if (!split) return std::nullopt;
  auto [value, suffix] = *split;
  if (suffix.empty()) {
    if (bare_zero_ok && value == 0) return 0.0;
    return std::nullopt;
  }
  for (const Unit& u : units) {
    if (suffix == u.suffix) return value * u.scale;
  }
  return std::nullopt;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return std::string(s);
}

}  // namespace

double BandwidthTarget::TargetBitsPerS(double real_bits_per_s) const {
  switch (kind) {
    case Kind::kNone:
      return real_bits_per_s;
    case Kind::kAbsolute:
      return bits_per_s;
    case Kind::kFraction:
      return real_bits_per_s * fraction;
  }
  return 0;
}

bool Config::EmulatesDevice(std::string_view name) const {
  if (devices.empty()) return true;
  for (const std::string& d : devices) {
    if (d == name) return true;
  }
  return false;
}

std::optional<double> ParseDurationNs(std::string_view text) {
  static const std::vector<Unit> kUnits = {
      {"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  auto ns = ParseWithUnits(text, kUnits, /*bare_zero_ok=*/true);
  if (!ns || *ns > 1e9) return std::nullopt;  // at most one second
  return ns;
}

std::optional<double> ParseBitsPerS(std::string_view text) {
  static const std::vector<Unit> kUnits = {{"bit/s", 1},
                                           {"Kbit/s", 1e3},
                                           {"Mbit/s", 1e6},
                                           {"Gbit/s", 1e9},
                                           {"Tbit/s", 1e12},
                                           {"bps", 1},
                                           {"Kbps", 1e3},
                                           {"Mbps", 1e6},
                                           {"Gbps", 1e9},
                                           {"B/s", 8},
                                           {"KB/s", 8e3},
                                           {"MB/s", 8e6},
                                           {"GB/s", 8e9},
                                           {"KiB/s", 8192.0},
                                           {"MiB/s", 8.0 * 1048576},
                                           {"GiB/s", 8.0 * 1073741824}};
  auto bps = ParseWithUnits(text, kUnits, /*bare_zero_ok=*/false);
  if (!bps || *bps <= 0) return std::nullopt;
  return bps;
}

std::optional<BandwidthTarget> ParseBandwidth(std::string_view text) {
  BandwidthTarget bw;
  if (!text.empty() && text.back() == '%') {
    auto split = SplitNumber(text.substr(0, text.size() - 1));
    if (!split || !split->second.empty()) return std::nullopt;
    const double pct = split->first;
    if (pct <= 0 || pct > 100) return std::nullopt;
    if (pct == 100) return bw;  // full speed: nothing to emulate
    bw.kind = BandwidthTarget::Kind::kFraction;
    bw.fraction = pct / 100.0;
    return bw;
  }
  auto bps = ParseBitsPerS(text);
  if (!bps) return std::nullopt;
  bw.kind = BandwidthTarget::Kind::kAbsolute;
  bw.bits_per_s = *bps;
  return bw;
}

std::optional<BwMode> ParseBwMode(std::string_view text) {
  if (text == "pad") return BwMode::kPad;
  if (text == "pace") return BwMode::kPace;
  return std::nullopt;
}

std::optional<uint64_t> ParseSize(std::string_view text) {
  static const std::vector<Unit> kUnits = {
      {"B", 1},         {"K", 1024},  {"KiB", 1024}, {"M", 1 << 20},
      {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1e6}};
  auto split = SplitNumber(text);
  if (!split) return std::nullopt;
  double bytes = split->first;
  if (!split->second.empty()) {
    auto v = ParseWithUnits(text, kUnits, false);
    if (!v) return std::nullopt;
    bytes = *v;
  }
  if (bytes < 0 || bytes > 1e12 || bytes != std::floor(bytes)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(bytes);
}

std::optional<int> ParseReportSignal(std::string_view text) {
  if (text == "USR1" || text == "SIGUSR1") return SIGUSR1;
  if (text == "USR2" || text == "SIGUSR2") return SIGUSR2;
  return std::nullopt;
}

std::string FormatNs(double ns) {
  char buf[48];
  if (ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%gms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%gus", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%gns", ns);
  }
  return buf;
}

std::string FormatBandwidth(const BandwidthTarget& bw) {
  char buf[48];
  switch (bw.kind) {
    case BandwidthTarget::Kind::kNone:
      return "native";
    case BandwidthTarget::Kind::kFraction:
      std::snprintf(buf, sizeof buf, "%g%%", bw.fraction * 100);
      return buf;
    case BandwidthTarget::Kind::kAbsolute:
      std::snprintf(buf, sizeof buf, "%gGbit/s", bw.bits_per_s / 1e9);
      return buf;
  }
  return "?";
}

const std::vector<ConfigVar>& ConfigVars() {
  static const std::vector<ConfigVar> kVars = {
      {"VERBSEMU_LATENCY", "a duration up to 1s such as 2us, 1500ns, 0.5ms, 0"},
      {"VERBSEMU_BANDWIDTH",
       "a rate such as 25Gbit/s, 800Mbit/s, 3GB/s, or a share of the link "
       "such as 40%"},
      {"VERBSEMU_BW_MODE", "pad or pace"},
      {"VERBSEMU_PAD_THRESHOLD", "a size such as 65536, 64KiB, 1MiB"},
      {"VERBSEMU_DEVICES", "a comma-separated list of device names"},
      {"VERBSEMU_REPORT", "stderr or a file path"},
      {"VERBSEMU_REPORT_SIGNAL",
       "USR1 or USR2 (write the report on that signal)"},
      {"VERBSEMU_LINK_BANDWIDTH", "a rate such as 100Gbit/s, 5GB/s"},
  };
  return kVars;
}

std::string ValidateVar(std::string_view name, std::string_view value) {
  Config scratch;
  bool ok = true;
  const std::string v = Trim(value);
  if (name == "VERBSEMU_LATENCY") {
    ok = ParseDurationNs(v).has_value();
  } else if (name == "VERBSEMU_BANDWIDTH") {
    ok = ParseBandwidth(v).has_value();
  } else if (name == "VERBSEMU_BW_MODE") {
    ok = ParseBwMode(v).has_value();
  } else if (name == "VERBSEMU_PAD_THRESHOLD") {
    auto s = ParseSize(v);
    ok = s.has_value() && *s > 0;
  } else if (name == "VERBSEMU_DEVICES") {
    ok = !v.empty() && v.front() != ',' && v.back() != ',' &&
         v.find(",,") == std::string::npos;
  } else if (name == "VERBSEMU_REPORT") {
    ok = !v.empty();
  } else if (name == "VERBSEMU_REPORT_SIGNAL") {
    ok = ParseReportSignal(v).has_value();
  } else if (name == "VERBSEMU_LINK_BANDWIDTH") {
    ok = ParseBitsPerS(v).has_value();
  }
  if (ok) return "";
  for (const ConfigVar& var : ConfigVars()) {
    if (name == var.name) {
      return std::string(name) + "='" + std::string(value) +
             "' is not accepted; expected " + var.accepted;
    }
  }
  return std::string(name) + " is not a verbsemu variable";
}

ConfigResult ConfigFromEnv(
    const std::function<const char*(const char*)>& getenv) {
  ConfigResult result;
  Config& c = result.config;
  for (const ConfigVar& var : ConfigVars()) {
    const char* raw = getenv(var.name);
    if (raw == nullptr) continue;
    std::string err = ValidateVar(var.name, raw);
    if (!err.empty()) {
      result.error = std::move(err);
      return result;
    }
    const std::string v = Trim(raw);
    const std::string_view name = var.name;
    if (name == "VERBSEMU_LATENCY") {
      c.latency_ns = *ParseDurationNs(v);
    } else if (name == "VERBSEMU_BANDWIDTH") {
      c.bandwidth = *ParseBandwidth(v);
    } else if (name == "VERBSEMU_BW_MODE") {
      c.bw_mode = *ParseBwMode(v);
    } else if (name == "VERBSEMU_PAD_THRESHOLD") {
      c.pad_threshold_bytes = *ParseSize(v);
    } else if (name == "VERBSEMU_DEVICES") {
      size_t start = 0;
      while (start <= v.size()) {
        size_t comma = v.find(',', start);
        if (comma == std::string::npos) comma = v.size();
        c.devices.push_back(
            Trim(std::string_view(v).substr(start, comma - start)));
        start = comma + 1;
      }
    } else if (name == "VERBSEMU_REPORT") {
      c.report = v;
    } else if (name == "VERBSEMU_REPORT_SIGNAL") {
      c.report_signal = *ParseReportSignal(v);
    } else if (name == "VERBSEMU_LINK_BANDWIDTH") {
      c.link_bits_per_s = *ParseBitsPerS(v);
    }
  }
  return result;
}

}  // namespace verbsemu::emulate
