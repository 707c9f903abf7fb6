// Run documents for the comparison's tests, made the way verbsbench makes
// them (Recorder samples, ToJson of verbsbench/mode.h) from samples the test
// chooses: synthetic distributions, never presented as measurements.
#ifndef VERBSBENCH_COMPARE_TEST_RUNS_H_
#define VERBSBENCH_COMPARE_TEST_RUNS_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "verbsbench/options.h"

namespace verbsbench::compare::test_runs {

// n lognormal samples around `median_ns` (sigma 0.1), plus `shift_ns`.
std::vector<double> LogNormal(double median_ns, int n, uint64_t seed,
                              double shift_ns = 0);

struct PointSpec {
  Op op = Op::kSend;
  size_t size = 8;
  bool is_inline = false;
  std::vector<double> samples;
};

// A lat or bw root's --json document with these points; every sample kept
// in raw_ns when `keep_raw`.
nlohmann::json RunJson(Mode mode, const std::vector<PointSpec>& points,
                       bool keep_raw);

// A lop run: curve rtt2_1n_send_inline with p = 1..n, p's samples
// per_p[p - 1].
nlohmann::json LopRunJson(const std::vector<std::vector<double>>& per_p,
                          bool keep_raw);

}  // namespace verbsbench::compare::test_runs

#endif  // VERBSBENCH_COMPARE_TEST_RUNS_H_
