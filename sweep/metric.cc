#include "sweep/metric.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "sweep/presets.h"

namespace verbsemu::sweep {
namespace {

std::optional<double> Number(const std::string& text, std::string* why) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) {
    *why = "'" + text + "' is not a number";
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<Metric> Metric::Parse(std::string_view spec,
                                    std::string_view metric_file,
                                    std::string* why) {
  Metric m;
  m.spec_ = spec;
  if (spec == "runtime") return m;
  std::optional<ResolvedPreset> preset;
  if (spec.starts_with("preset:")) {
    preset = ResolvePreset(spec.substr(7), why);
    if (!preset) return std::nullopt;
    if (preset->pattern.empty()) return m;  // the wall time
  }
  if (preset || (spec.starts_with("regex:") && spec.size() > 6)) {
    m.kind_ = Kind::kRegex;
    m.pattern_ = preset ? preset->pattern : std::string(spec.substr(6));
    RE2::Options options;
    options.set_log_errors(false);  // the one line below says it instead
    auto regex = std::make_shared<const RE2>(m.pattern_, options);
    if (!regex->ok()) {
      *why = "--metric: the pattern '" + m.pattern_ +
             "' does not compile: " + regex->error();
      return std::nullopt;
    }
    m.regex_ = std::move(regex);
    return m;
  }
  if (spec.starts_with("json:")) {
    m.kind_ = Kind::kJson;
    m.pattern_ = spec.substr(5);
    try {
      (void)nlohmann::json::json_pointer(m.pattern_);
    } catch (const nlohmann::json::exception&) {
      *why = "--metric: '" + m.pattern_ +
             "' is not a JSON pointer (such as /results/0/bw)";
      return std::nullopt;
    }
    if (metric_file.empty()) {
      *why =
          "--metric json:POINTER needs --metric-file FILE (the JSON the "
          "command writes)";
      return std::nullopt;
    }
    m.file_ = metric_file;
    return m;
  }
  *why = "--metric: '" + std::string(spec) +
         "' is not runtime, preset:NAME[:ARG], regex:PATTERN or json:POINTER";
  return std::nullopt;
}

std::optional<double> Metric::FromOutput(std::string_view output, double wall_s,
                                         std::string* why) const {
  if (kind_ == Kind::kRuntime) return wall_s;
  if (kind_ != Kind::kRegex) {
    *why = "internal: not an output metric";
    return std::nullopt;
  }
  // Line by line, so a pattern means the same on every kind of output
  // (`[^x]+` never runs across lines); each search is linear in the line.
  const int groups = std::min(regex_->NumberOfCapturingGroups(), 1);
  re2::StringPiece match[2];
  std::string last;
  bool found = false;
  size_t start = 0;
  while (start < output.size()) {
    const size_t nl = std::min(output.find('\n', start), output.size());
    const re2::StringPiece line(output.data() + start, nl - start);
    size_t at = 0;
    while (at <= line.size() &&
           regex_->Match(line, at, line.size(), RE2::UNANCHORED, match,
                         groups + 1)) {
      last = std::string(match[groups].data(), match[groups].size());
      found = true;
      const size_t end = match[0].data() - line.data() + match[0].size();
      at = end > at ? end : at + 1;  // never stall on an empty match
    }
    start = nl + 1;
  }
  if (!found && spec_.starts_with("preset:")) {
    const bool sized = spec_.find(':', 7) != std::string::npos;
    *why = spec_ + " found no line of its tool's output (" + pattern_ +
           ") in the output: is this the tool" +
           (sized ? ", and the size among those it ran?" : "?");
    return std::nullopt;
  }
  if (!found) {
    *why = "the pattern '" + pattern_ + "' matches nothing in the output";
    return std::nullopt;
  }
  return Number(last, why);
}

std::optional<double> Metric::FromJson(std::string_view json_text,
                                       std::string* why) const {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) {
    *why = file_ + " is not valid JSON";
    return std::nullopt;
  }
  // at() throws for a missing key, an index out of range, and a token that
  // is no index into an array (contains() throws for the last, too).
  const nlohmann::json* found = nullptr;
  try {
    found = &doc.at(nlohmann::json::json_pointer(pattern_));
  } catch (const nlohmann::json::exception&) {
    *why = file_ + " has nothing at " + pattern_;
    return std::nullopt;
  }
  const nlohmann::json& v = *found;
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return Number(v.get<std::string>(), why);
  *why = file_ + " at " + pattern_ + " holds no number";
  return std::nullopt;
}

}  // namespace verbsemu::sweep
