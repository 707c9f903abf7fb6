// The shim's JSON report, one document per process: the contract between
// libverbsemu.so (which writes it) and verbsemu sweep (which judges runs by
// it). A change that breaks a reader of version N bumps the number.
#ifndef VERBSEMU_REPORT_SCHEMA_H_
#define VERBSEMU_REPORT_SCHEMA_H_

#include <string_view>

namespace verbsemu::report {

inline constexpr std::string_view kSchemaFamily = "verbsemu.report/";
inline constexpr std::string_view kSchema = "verbsemu.report/1";
// Appended to the human report's path to name the JSON report.
inline constexpr std::string_view kJsonSuffix = ".json";

}  // namespace verbsemu::report

#endif  // VERBSEMU_REPORT_SCHEMA_H_
