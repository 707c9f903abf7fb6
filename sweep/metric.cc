#include "sweep/metric.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

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

// ECMAScript refuses a quantifier on a quantifier ("a**", "a+*"; "a+?" is
// the lazy form), but libstdc++ accepts it and then backtracks
// exponentially: refuse it here. Escapes and [classes] are skipped.
bool QuantifierOnQuantifier(std::string_view p) {
  bool after_quantifier = false, after_lazy = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    const bool quantifier = c == '*' || c == '+' || c == '{';
    if ((quantifier || (c == '?' && after_lazy)) && after_quantifier) {
      return true;
    }
    if (c == '?' && after_quantifier && !after_lazy) {
      after_lazy = true;
      continue;
    }
    after_lazy = false;
    after_quantifier = quantifier || c == '?';
    if (c == '{') i = std::min(p.find('}', i), p.size());
    if (c == '\\') ++i;
    if (c == '[') {
      const size_t close = p.find(']', i + 2);
      i = close == std::string_view::npos ? p.size() : close;
    }
  }
  return false;
}

}  // namespace

std::optional<Metric> Metric::Parse(std::string_view spec,
                                    std::string_view metric_file,
                                    std::string* why) {
  Metric m;
  m.spec_ = spec;
  if (spec == "runtime") return m;
  if (spec.starts_with("regex:") && spec.size() > 6) {
    m.kind_ = Kind::kRegex;
    m.pattern_ = spec.substr(6);
    if (QuantifierOnQuantifier(m.pattern_)) {
      *why = "--metric: the pattern '" + m.pattern_ +
             "' puts a quantifier on a quantifier (such as a** or a+*)";
      return std::nullopt;
    }
    try {
      m.regex_ = std::regex(m.pattern_, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      *why = "--metric: the pattern '" + m.pattern_ +
             "' does not compile: " + e.what();
      return std::nullopt;
    }
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
         "' is not runtime, regex:PATTERN or json:POINTER";
  return std::nullopt;
}

std::optional<double> Metric::FromOutput(std::string_view output, double wall_s,
                                         std::string* why) const {
  if (kind_ == Kind::kRuntime) return wall_s;
  if (kind_ != Kind::kRegex) {
    *why = "internal: not an output metric";
    return std::nullopt;
  }
  // Line by line: libstdc++'s regex recurses per character, so one search
  // over a long output could exhaust the stack.
  std::match_results<std::string_view::const_iterator> m, last;
  bool found = false;
  size_t start = 0;
  while (start < output.size()) {
    const size_t nl = std::min(output.find('\n', start), output.size());
    const std::string_view line = output.substr(start, nl - start);
    auto it = line.begin();
    while (it != line.end() && std::regex_search(it, line.end(), m, regex_)) {
      last = m;
      found = true;
      it = m[0].second != it ? m[0].second : it + 1;  // never stall on ""
    }
    start = nl + 1;
  }
  if (!found) {
    *why = "the pattern '" + pattern_ + "' matches nothing in the output";
    return std::nullopt;
  }
  const auto& group = last.size() > 1 ? last[1] : last[0];
  return Number(group.str(), why);
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
