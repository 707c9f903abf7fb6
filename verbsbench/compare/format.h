// A comparison as text (a block per matched point: BASE, NEW and ratio rows
// of every quantile, then the distances) and as JSON (--json).
#ifndef VERBSBENCH_COMPARE_FORMAT_H_
#define VERBSBENCH_COMPARE_FORMAT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "verbsbench/compare/compare.h"

namespace verbsbench::compare {

void PrintComparison(const Comparison& c, std::ostream& out);

// The closing line: "PASS: ...", "FAIL: ..." or, without thresholds,
// "report only: ...".
void PrintVerdict(const Comparison& c, const Thresholds& t,
                  const std::vector<Crossing>& crossings, std::ostream& out);

// {"tool":"verbsbench compare","base","new","mode","points":[{"point",
// "identity","samples","observations","quantiles":[{"name","base_ns",
// "new_ns","ratio","from"}],"distance":{"from","shared_bins","ks",
// "ks_pvalue","wasserstein_ns"}}],"only_in_base","only_in_new",
// "thresholds","crossings":[{"point","check","value","limit"}],"pass"}.
// A ratio that cannot be computed is null.
nlohmann::json ComparisonJson(const Comparison& c, const Thresholds& t,
                              const std::vector<Crossing>& crossings);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_FORMAT_H_
