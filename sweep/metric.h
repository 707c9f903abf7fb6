// What a sweep measures per run: the command's wall time (`runtime`), a
// number in its output (`regex:PATTERN`, RE2 syntax: the first capture
// group of the last match, or the whole match when the pattern has no
// group; matched line by line, in time linear in the output), or a number
// in a JSON file it writes (`json:POINTER`, an RFC 6901 pointer into the
// file named with --metric-file). `preset:NAME[:ARG]` is a regex (or the
// wall time) from the presets table (presets.h).
#ifndef VERBSEMU_SWEEP_METRIC_H_
#define VERBSEMU_SWEEP_METRIC_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace verbsemu::sweep {

class Metric {
 public:
  enum class Kind { kRuntime, kRegex, kJson };

  // nullopt and one line in `why` for an unknown kind, a pattern that does
  // not compile, or json: without a metric file.
  static std::optional<Metric> Parse(std::string_view spec,
                                     std::string_view metric_file,
                                     std::string* why);

  Kind kind() const { return kind_; }
  const std::string& spec() const { return spec_; }
  const std::string& file() const { return file_; }

  // The run's value: `wall_s` for runtime, else read from `output` (the
  // command's stdout and stderr) or from the JSON text. nullopt with `why`
  // when nothing matches or the value is not a finite number.
  std::optional<double> FromOutput(std::string_view output, double wall_s,
                                   std::string* why) const;
  std::optional<double> FromJson(std::string_view json_text,
                                 std::string* why) const;

 private:
  Kind kind_ = Kind::kRuntime;
  std::string spec_;                       // as given
  std::string pattern_;                    // regex: or json: argument
  std::string file_;                       // json: the file the command writes
  std::shared_ptr<const re2::RE2> regex_;  // shared: RE2 is not copyable
};

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_METRIC_H_
