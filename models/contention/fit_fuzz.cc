// Fuzzes the fit on any measurement the reader accepts: a result or one
// line saying why not (no one-edge graph), never a crash; alpha finite and
// positive, every score and penalty a number.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/contention/contend_data.h"
#include "models/contention/fit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verbsemu::contention;
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto d = ParseContend(text, &why);
  if (!d) return 0;
  FitOptions o;
  o.models = {"mm2011-node", "maxmin"};  // ib-hol: too slow to fuzz
  FitResult f;
  try {
    f = Fit(*d, o);
  } catch (const std::invalid_argument& e) {
    why = e.what();
    if (why.empty() || why.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  if (!(f.alpha.value > 0) || !std::isfinite(f.alpha.value)) std::abort();
  for (const ModelScore& m : f.models)
    if (std::isnan(m.aicc) || m.n <= 0) std::abort();
  for (const EdgePenalty& p : f.penalties)
    if (p.rho1.n > 0 && std::isnan(p.rho1.value)) std::abort();
  return 0;
}
