#include "sweep/precision_options.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "emulate/units.h"

namespace verbsemu::sweep {

std::optional<double> BudgetSeconds(const std::string& value) {
  const auto per = [&](const char* unit) {
    return value.size() > std::strlen(unit) && value.ends_with(unit);
  };
  double scale = 0;
  size_t cut = 0;
  if (per("h")) {
    scale = 3600, cut = 1;
  } else if (per("min")) {
    scale = 60, cut = 3;
  } else if (per("m")) {
    scale = 60, cut = 1;
  }
  std::string why;
  if (scale == 0) {
    const auto ns = units::ParseDurationNs(value, &why);
    return ns && *ns > 0 ? std::optional<double>(*ns / 1e9) : std::nullopt;
  }
  const std::string number = value.substr(0, value.size() - cut);
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (*end != '\0' || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

bool SetPrecisionOption(const std::string& name, const std::string& value,
                        ParsedArgs* out) {
  char* end = nullptr;
  if (name == "--precision") {
    const bool percent = value.ends_with('%');
    const std::string number = value.substr(0, value.size() - percent);
    double rel = std::strtod(number.c_str(), &end);
    if (percent) rel /= 100;
    if (number.empty() || *end != '\0' || !(rel > 0 && rel < 1)) {
      out->error = "--precision='" + value +
                   "': expected a fraction above 0 and below 1, such as "
                   "0.05 (or 5%) for an interval within 5% of the estimate";
    }
    out->precision = rel;
  } else if (name == "--max-blocks") {
    const long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n < 1 || n > 10000) {
      out->error =
          "--max-blocks='" + value + "': expected a whole number 1..10000";
    }
    out->max_blocks = static_cast<int>(n);
  } else if (name == "--budget") {
    const auto s =
        value == "none" ? std::optional<double>(0) : BudgetSeconds(value);
    if (!s) {
      out->error = "--budget='" + value +
                   "': expected a wall time such as 90m, 2h or 600s, or none";
    }
    out->budget_s = s.value_or(0);
  } else {
    return false;
  }
  return true;
}

}  // namespace verbsemu::sweep
