// The benchmark engine: runs a mode (internal/modes.h) as root (measures,
// returns the typed result) or as peer (serves the root's commands). The CLI,
// the writers and the tests all go through Run / RunBenchmark.
#ifndef VERBSBENCH_ENGINE_H_
#define VERBSBENCH_ENGINE_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "verbsbench/options.h"
#include "verbsbench/result.h"

namespace verbsbench {

// Runs the benchmark. Progress lines go to `progress`. Throws
// std::runtime_error with a one-line message on failure.
Result Run(const Options& options, std::ostream& progress);

// ToJson(Run(...)): the whole-run JSON (mode.h).
nlohmann::json RunBenchmark(const Options& options, std::ostream& progress);

}  // namespace verbsbench

#endif  // VERBSBENCH_ENGINE_H_
