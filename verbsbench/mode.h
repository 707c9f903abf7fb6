// What depends on a run's mode, for the command line, the engine and the
// tests: each answer comes from the mode's row of the modes' table
// (internal/modes.h, kModes).
#ifndef VERBSBENCH_MODE_H_
#define VERBSBENCH_MODE_H_

#include <nlohmann/json.hpp>

#include "verbsbench/options.h"
#include "verbsbench/result.h"

namespace verbsbench {

// Fills the mode's defaults (ops, inline modes, sizes) and p values, and
// checks the options; throws std::invalid_argument with a one-line message.
Options Normalize(Options options);

// The whole-run JSON. Root: {"tool","mode","params","device","timer",
// "provenance","ranks"} and the mode's section ("results"|"lop"|"loggp");
// peer: {"tool","mode","role","device","timer","provenance"}.
nlohmann::json ToJson(const Result& result);

}  // namespace verbsbench

#endif  // VERBSBENCH_MODE_H_
