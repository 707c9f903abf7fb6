// The one conversion of a JSON number to a whole number of a given type.
// nlohmann's get<T>() of a float outside T's range is undefined behaviour
// (found by files_fuzz and control_fuzz): every reader of an integer field
// goes through WholeNumber, which says "no" instead.
#ifndef BASE_JSON_NUMBER_H_
#define BASE_JSON_NUMBER_H_

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace base {

// `v` as a T: an integer in T's range, or a finite float with no fraction
// in T's range (1e3 and 1000.0 are 1000); nothing otherwise (a string, a
// fraction, a negative value for an unsigned T, anything out of range).
template <std::integral T>
requires(!std::same_as<T, bool>) std::optional<T> WholeNumber(
    const nlohmann::json& v) {
  using Limits = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(Limits::max())) return std::nullopt;
    return static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < 0 && !Limits::is_signed) return std::nullopt;
    if (i < 0 && i < static_cast<std::int64_t>(Limits::min())) {
      return std::nullopt;
    }
    if (i > 0 && static_cast<std::uint64_t>(i) >
                     static_cast<std::uint64_t>(Limits::max())) {
      return std::nullopt;
    }
    return static_cast<T>(i);
  }
  if (!v.is_number_float()) return std::nullopt;
  const double d = v.get<double>();
  // Limits::max() + 1 is a power of two, exact as a double; min() too.
  const double above = std::ldexp(1.0, Limits::digits);
  if (!std::isfinite(d) || d != std::floor(d) || d >= above ||
      d < static_cast<double>(Limits::min())) {
    return std::nullopt;
  }
  return static_cast<T>(d);
}

}  // namespace base

#endif  // BASE_JSON_NUMBER_H_
