// The sweep's answer in the words and numbers a user acts on: the blocked
// robust slope with its unit, the runs it set aside, the noisy points and
// the latency and bandwidth tolerances; for the terminal, for sweep.json
// and, for a time metric, as LLAMP's CSV files (spcl/llamp,
// mpi-dep-graph/metrics.py NetLatSensitivity.to_csv and
// scripts/case_study.py), so LLAMP's predictions can be checked against
// measurement.
#ifndef VERBSEMU_SWEEP_ANSWER_H_
#define VERBSEMU_SWEEP_ANSWER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sweep/analysis.h"

namespace verbsemu::sweep {

// Lines for the terminal, after the per-point table.
std::string AnswerText(const Analysis& a);

// sweep.json's "answer": the label, the blocked fits, the set-aside runs,
// the noisy points and the tolerances (INFINITY as null).
nlohmann::json AnswerJson(const Analysis& a);

// LLAMP's files as (name, contents): llamp_lat_sensitivity.csv
// (L,sensitivity), llamp_runtime.csv (L,runtime), llamp_lat_tolerance.csv
// (latency_threshold,latency_tolerance); L is the added one-way latency in
// ns, runtime in ns, sensitivity dT/dL. Empty unless the metric is a time
// (unit s, ms, us or ns) and the latency fit holds.
std::vector<std::pair<std::string, std::string>> LlampFiles(const Analysis& a);

// Writes LlampFiles(a) into `dir`; false with one line in `why`.
bool WriteLlampFiles(const Analysis& a, const std::string& dir,
                     std::string* why);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_ANSWER_H_
