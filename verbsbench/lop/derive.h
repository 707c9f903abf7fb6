// LoP §4.4 derived curves from measured lop curves, and the definitions
// block of the lop section.
#ifndef VERBSBENCH_LOP_DERIVE_H_
#define VERBSBENCH_LOP_DERIVE_H_

#include <nlohmann/json.hpp>
#include <vector>

namespace verbsbench::lop {

// From curves of kind "rtt" and the matching send overheads
// (SendOverheadCurveName, single and list): L(p) and L_list(p) (formulas.h)
// for min, median and mean. Returns curves of kind "latency" named by
// LatencyCurveName; points without matching overheads are skipped.
std::vector<nlohmann::json> DeriveLatencyCurves(
    const std::vector<nlohmann::json>& curves);

// What each curve kind measures (the "definitions" object).
nlohmann::json Definitions();

}  // namespace verbsbench::lop

#endif  // VERBSBENCH_LOP_DERIVE_H_
