// JSON access for the run writers (report.cc, report_loggp.cc): a run with
// missing parts prints what it has; values of the wrong type throw.
#ifndef VERBSBENCH_INTERNAL_REPORT_FIELDS_H_
#define VERBSBENCH_INTERNAL_REPORT_FIELDS_H_

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "base/json_number.h"

namespace verbsbench::internal {

// The member `key` of `j`, or an empty object when `j` is not an object or
// has no such member: a run with missing parts prints what it has, and
// values of the wrong type throw (json::type_error), never assert.
inline const nlohmann::json& Field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!j.is_object()) return kEmpty;
  const auto it = j.find(key);
  return it == j.end() ? kEmpty : *it;
}

// An integer member of `j` (def when absent), range-checked
// (base::WholeNumber): a float outside T's range would make the conversion
// undefined.
template <class T>
T Whole(const nlohmann::json& j, const char* key, T def) {
  if (!j.is_object()) throw std::invalid_argument("run: expected an object");
  const auto it = j.find(key);
  if (it == j.end()) return def;
  if (const std::optional<T> n = base::WholeNumber<T>(*it)) return *n;
  throw std::invalid_argument(std::string("run: \"") + key +
                              "\" is not a whole number in range");
}

inline std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_REPORT_FIELDS_H_
