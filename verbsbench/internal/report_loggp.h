// The loggp run's writers: its table (Netgauge's columns and the values
// derived per size), its CSV, and its measured entries for the writers
// every mode shares (histograms, raw samples, warnings).
#ifndef VERBSBENCH_INTERNAL_REPORT_LOGGP_H_
#define VERBSBENCH_INTERNAL_REPORT_LOGGP_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace verbsbench::internal {

// fn(label, entry) for each measured entry (prtt_1_0, prtt_n_0, prtt_n_d,
// o_r) of each size, labelled "loggp s=SIZE ENTRY".
void ForEachLoggpEntry(
    const nlohmann::json& run,
    const std::function<void(const std::string&, const nlohmann::json&)>& fn);
void PrintLoggpTable(const nlohmann::json& run, std::ostream& out);
void WriteLoggpCsv(const nlohmann::json& run, std::ostream& out);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_REPORT_LOGGP_H_
