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

// Runs the benchmark. Progress lines go to `progress`. Root: returns
// {"tool","mode","params","device","timer","results"|"lop"}; peer: a short
// summary. Throws std::runtime_error with a one-line message on failure.
nlohmann::json RunBenchmark(const Options& options, std::ostream& progress);

}  // namespace verbsbench

#endif  // VERBSBENCH_ENGINE_H_
