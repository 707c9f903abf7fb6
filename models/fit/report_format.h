// Number formatting shared by lopfit's and loggpfit's reports: a value that
// is not finite (not identified, not computed) prints as "-" in text and
// null in JSON.
#ifndef VERBSEMU_MODELS_FIT_REPORT_FORMAT_H_
#define VERBSEMU_MODELS_FIT_REPORT_FORMAT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace verbsemu::fit {

// v, or null when not finite.
nlohmann::json NumOrNull(double v);
// v in a fixed-point column of `width` with `prec` decimals, or a
// right-aligned "-".
std::string FixedOrDash(double v, int width, int prec);
// v with 6 significant digits, or "-".
std::string SciOrDash(double v);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_FIT_REPORT_FORMAT_H_
