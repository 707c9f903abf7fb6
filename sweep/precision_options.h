// The options of an adaptive sweep (--precision, --max-blocks, --budget),
// parsed for the sweep's argument reader (options.cc).
#ifndef VERBSEMU_SWEEP_PRECISION_OPTIONS_H_
#define VERBSEMU_SWEEP_PRECISION_OPTIONS_H_

#include <optional>
#include <string>

#include "sweep/plan.h"

namespace verbsemu::sweep {

// A wall-clock budget: the shim's durations (300s, 1500ms) and minutes or
// hours (90m, 45min, 2h); nullopt for anything else or not above 0.
std::optional<double> BudgetSeconds(const std::string& value);

// --precision, --max-blocks and --budget into `out` (a refusal in
// out->error); false for any other option.
bool SetPrecisionOption(const std::string& name, const std::string& value,
                        ParsedArgs* out);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_PRECISION_OPTIONS_H_
