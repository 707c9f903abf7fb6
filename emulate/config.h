// Emulation settings and their textual forms (environment variables and the
// launcher's flags share these parsers, so both accept exactly the same text).
#ifndef VERBSEMU_EMULATE_CONFIG_H_
#define VERBSEMU_EMULATE_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::emulate {

enum class BwMode { kPad, kPace };

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
  double latency_ns = 0;
  BandwidthTarget bandwidth;
  BwMode bw_mode = BwMode::kPad;
  uint64_t pad_threshold_bytes = 64 * 1024;
  std::vector<std::string> devices;  // empty: every device
  std::string report;                // "", "stderr", or a file path
  int report_signal = 0;             // SIGUSR1/SIGUSR2: report on request
  double link_bits_per_s = 0;        // 0: from ibv_query_port

  bool emulating() const { return latency_ns > 0 || bandwidth.enabled(); }
  bool EmulatesDevice(std::string_view name) const;
};

// Parsers. Each returns nullopt on anything it does not fully accept.
std::optional<double> ParseDurationNs(std::string_view text);
std::optional<BandwidthTarget> ParseBandwidth(std::string_view text);
std::optional<double> ParseBitsPerS(std::string_view text);
std::optional<BwMode> ParseBwMode(std::string_view text);
std::optional<uint64_t> ParseSize(std::string_view text);
// USR1, USR2, SIGUSR1 or SIGUSR2: the signals left to applications by
// convention, so asking for a report never takes over another signal.
std::optional<int> ParseReportSignal(std::string_view text);
std::string FormatNs(double ns);
std::string FormatBandwidth(const BandwidthTarget& bw);

// Environment variable names and what each accepts (for error lines).
struct ConfigVar {
  const char* name;
  const char* accepted;
};
const std::vector<ConfigVar>& ConfigVars();

struct ConfigResult {
  Config config;
  std::string error;  // one line naming the variable; empty when ok
  bool ok() const { return error.empty(); }
};

// Reads every VERBSEMU_* variable through `getenv` (inject for tests; the
// shim passes secure_getenv). The first bad value stops parsing.
ConfigResult ConfigFromEnv(
    const std::function<const char*(const char*)>& getenv);

// Validates one variable's value; empty string when ok, else the error line.
std::string ValidateVar(std::string_view name, std::string_view value);

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_CONFIG_H_
