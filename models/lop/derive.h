// LoP §4.4/§4.7 derived curves from measured lop curves, and the
// definitions block of the lop section.
#ifndef VERBSEMU_MODELS_LOP_DERIVE_H_
#define VERBSEMU_MODELS_LOP_DERIVE_H_

#include <nlohmann/json.hpp>
#include <vector>

namespace verbsbench::lop {

// From the measured curves: per curve of kind "round" one of kind "rtt",
// t_rtt(p) = round(p)/p for min, median, mean and p99 (exact: a quantile of
// samples scaled by 1/p is the quantile scaled); then per rtt curve with
// the matching send overheads (SendOverheadCurveName) L(p) from a
// single-post rtt curve and L_list(p) from a list-posted one (formulas.h),
// for min, median and mean. Points without matching overheads are skipped.
std::vector<nlohmann::json> DeriveCurves(
    const std::vector<nlohmann::json>& curves);

// What each curve kind measures (the "definitions" object).
nlohmann::json Definitions();

}  // namespace verbsbench::lop

#endif  // VERBSEMU_MODELS_LOP_DERIVE_H_
