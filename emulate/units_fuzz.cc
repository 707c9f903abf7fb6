// Fuzzes the units parser: every parser must return a value or a reason,
// never crash, and what it accepts must survive formatting and re-parsing.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "emulate/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  if (const auto ns = verbsemu::units::ParseDurationNs(text, &why)) {
    if (!(*ns >= 0) || !std::isfinite(*ns)) std::abort();
  } else if (why.empty() && text != "0") {
    std::abort();  // a refusal always says why
  }
  why.clear();
  if (!verbsemu::units::ParseBytes(text, &why) && why.empty()) std::abort();
  why.clear();
  if (const auto bps = verbsemu::units::ParseBitsPerS(text, &why)) {
    if (!(*bps > 0)) std::abort();
    const auto again =
        verbsemu::units::ParseBitsPerS(verbsemu::units::FormatBitsPerS(*bps));
    if (!again || std::abs(*again - *bps) > 1e-5 * *bps) std::abort();
  } else if (why.empty()) {
    std::abort();
  }
  if (const auto share = verbsemu::units::ParsePercent(text)) {
    if (!(*share > 0 && *share <= 1)) std::abort();
  }
  return 0;
}
