// loggpfit's renderings of a LoggpAnalysis: the text report (one row per
// size, then one block per segment) and the JSON document.
#ifndef VERBSEMU_MODELS_LOGGP_LOGGP_REPORT_H_
#define VERBSEMU_MODELS_LOGGP_LOGGP_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "models/loggp/loggp_fit.h"

namespace verbsemu::fit {

void PrintLoggpText(std::ostream& out, const LoggpAnalysis& a);
nlohmann::json LoggpToJson(const LoggpAnalysis& a);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOGGP_LOGGP_REPORT_H_
