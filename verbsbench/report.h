// Writers for a run's JSON: perftest-like human table, CSV, histogram file
// (bins with PDF and CDF, gnuplot blocks), raw samples and the JSON itself.
#ifndef VERBSBENCH_REPORT_H_
#define VERBSBENCH_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace verbsbench {

void PrintTable(const nlohmann::json& run, std::ostream& out);
void WriteCsv(const nlohmann::json& run, std::ostream& out);
void WriteHistograms(const nlohmann::json& run, std::ostream& out);
void WriteRaw(const nlohmann::json& run, std::ostream& out);
// One line on `err` when samples migrated between CPUs (nothing otherwise).
void PrintWarnings(const nlohmann::json& run, std::ostream& err);

// Writes `writer(run, stream)` to `path` ("-" = stdout); throws on I/O error.
void WriteFile(const std::string& path, const nlohmann::json& run,
               void (*writer)(const nlohmann::json&, std::ostream&));
void WriteJson(const nlohmann::json& run, std::ostream& out);

}  // namespace verbsbench

#endif  // VERBSBENCH_REPORT_H_
