// Metrics by name: `--metric preset:NAME[:ARG]` reads a known tool's
// figure from its output, and every metric carries a name and a unit for
// the table, the plots and sweep.json. The presets are one table
// (presets.cc); docs/sweep.md shows it.
#ifndef VERBSEMU_SWEEP_PRESETS_H_
#define VERBSEMU_SWEEP_PRESETS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace verbsemu::sweep {

enum class Better { kLower, kHigher };

struct Preset {
  std::string_view name;  // after "preset:"
  std::string_view tool;  // which program prints it
  // RE2, matched line by line; "{size}" stands for ARG (the message size
  // in bytes), or for any size when ARG is optional and not given. An
  // empty pattern means the command's wall time.
  std::string_view pattern;
  enum class Arg { kNone, kOptional, kRequired } arg;
  std::string_view quantity;  // what the number is
  std::string_view unit;
  Better better;
};

std::span<const Preset> Presets();

// What a metric's numbers are: for the table's header, the plots' axes
// and sweep.json.
struct MetricLabel {
  std::string name;  // "osu_latency 8192 B latency", "Loop time"
  std::string unit;  // "us", "s", ""
  Better better = Better::kLower;
  bool wall_time = false;  // the command's wall time in seconds
  // "name (unit)", or the name alone without a unit.
  std::string Axis() const;
};

// A preset spec's regex pattern ("" for wall time) and its label, or
// nullopt with one line in `why` (unknown name, bad or missing ARG).
struct ResolvedPreset {
  std::string pattern;
  MetricLabel label;
};
std::optional<ResolvedPreset> ResolvePreset(std::string_view name_arg,
                                            std::string* why);

// The label of any --metric spec: a preset's own; runtime's; a regex's
// literal text before its first group ("Loop time of ([0-9.]+)" gives
// "Loop time of"); a JSON pointer's last token. `name` and `unit`
// (--metric-name, --metric-unit) replace what is derived when not empty.
MetricLabel LabelFor(std::string_view spec, std::string_view name,
                     std::string_view unit);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PRESETS_H_
