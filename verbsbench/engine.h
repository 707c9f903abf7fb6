// The benchmark engine: runs lat, bw or lop as root (measures, returns the
// whole-run JSON) or as peer (serves the root's commands). The CLI, the
// writers and the tests all go through RunBenchmark.
#ifndef VERBSBENCH_ENGINE_H_
#define VERBSBENCH_ENGINE_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "verbsbench/options.h"

namespace verbsbench {

// Fills mode-dependent defaults (ops, inline modes, sizes, p values) and
// checks the options; throws std::invalid_argument with a one-line message.
Options Normalize(Options options);

// LoP §4.4 derived curves from measured lop curves (kind "rtt" and the
// matching "os_<op>_single[_inline]" / "os_<op>_list[_inline]"):
// L(p) = RTT2(p) - (o_s(p) + o_s(1)) and
// L_list(p) = RTT2(p) - (p * o_s_list(p) + o_s(1)), for min, median and
// mean, where RTT2(p) = RTT(p)/2 (LoP §4.7 derives L from t_rtt/2). Returns
// curves of kind "latency" named L_<1n|n1>_<op>_<inline|normal>
// and Llist_...; points without matching overheads are skipped.
std::vector<nlohmann::json> DeriveLatencyCurves(
    const std::vector<nlohmann::json>& curves);

// Runs the benchmark. Progress lines go to `progress`. Root: returns
// {"tool","mode","params","device","timer","results"|"lop"}; peer: a short
// summary. Throws std::runtime_error with a one-line message on failure.
nlohmann::json RunBenchmark(const Options& options, std::ostream& progress);

}  // namespace verbsbench

#endif  // VERBSBENCH_ENGINE_H_
