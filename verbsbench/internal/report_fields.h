// JSON access and shared pieces for the run writers (report.cc and the
// modes' report_*.cc): a run with missing parts prints what it has; values
// of the wrong type throw.
#ifndef VERBSBENCH_INTERNAL_REPORT_FIELDS_H_
#define VERBSBENCH_INTERNAL_REPORT_FIELDS_H_

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
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

// A distribution some of whose samples ran on two CPUs gets a line saying
// how many.
inline void PrintMigrated(const nlohmann::json& stats, std::ostream& out) {
  const uint64_t migrated = Whole(stats, "migrated_samples", uint64_t{0});
  if (migrated == 0) return;
  out << "   warning: " << migrated << " of "
      << Whole(stats, "count", uint64_t{0})
      << " samples migrated between CPUs (pin the processes: taskset -c)\n";
}

// The cycle minimums' distribution and the migrated samples, last in every
// row so the earlier columns keep their places.
inline constexpr const char* kCycleCsvHeader =
    ",cycles,cycle_min_min_ns,cycle_min_p50_ns,cycle_min_p90_ns,"
    "cycle_min_max_ns,cycle_min_modes,migrated_samples";

inline void WriteCycleCsv(const nlohmann::json& s, std::ostream& out) {
  const nlohmann::json& c = Field(s, "cycle_min");
  out << "," << Whole(c, "count", 0ull) << "," << c.value("min_ns", 0.0) << ","
      << c.value("p50_ns", 0.0) << "," << c.value("p90_ns", 0.0) << ","
      << c.value("max_ns", 0.0) << "," << Field(c, "modes").size() << ","
      << Whole(s, "migrated_samples", 0ull);
}

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_REPORT_FIELDS_H_
