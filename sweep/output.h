// What a sweep shows and leaves: the terminal table with the fits, and
// DIR/sweep.json (the plan, every run with its collected reports, the
// per-point summaries and the fits).
#ifndef VERBSEMU_SWEEP_OUTPUT_H_
#define VERBSEMU_SWEEP_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/plan.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {

std::string TableText(const Analysis& a, const std::string& metric);

// `reports(i)`: the report texts run i's processes wrote; `precision`:
// --precision's outcome (precision.h), kept unless null.
std::string SweepJson(
    const SweepPlan& plan, const Analysis& a,
    const std::vector<RunRecord>& records,
    const std::vector<std::vector<std::pair<std::string, std::string>>>&
        reports,
    const nlohmann::json& precision = nullptr);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_OUTPUT_H_
