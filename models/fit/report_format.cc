#include "models/fit/report_format.h"

#include <cmath>
#include <cstdio>

namespace verbsemu::fit {

nlohmann::json NumOrNull(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

std::string FixedOrDash(double v, int width, int prec) {
  if (!std::isfinite(v)) return std::string(width - 1, ' ') + "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%*.*f", width, prec, v);
  return buf;
}

std::string SciOrDash(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace verbsemu::fit
