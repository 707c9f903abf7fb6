#include "emulate/config.h"

#include <cstdio>

#include "emulate/units.h"

namespace verbsemu::emulate {

double BandwidthTarget::TargetBitsPerS(double real_bits_per_s) const {
  switch (kind) {
    case Kind::kNone:
      return real_bits_per_s;
    case Kind::kAbsolute:
      return bits_per_s;
    case Kind::kFraction:
      return real_bits_per_s * fraction;
  }
  return 0;
}

std::optional<BandwidthTarget> ParseBandwidth(std::string_view text,
                                              std::string* why) {
  BandwidthTarget bw;
  if (!text.empty() && text.back() == '%') {
    const auto share = units::ParsePercent(text, why);
    if (!share) return std::nullopt;
    if (*share == 1) return bw;  // full speed: nothing to emulate
    bw.kind = BandwidthTarget::Kind::kFraction;
    bw.fraction = *share;
    return bw;
  }
  const auto bps = units::ParseBitsPerS(text, why);
  if (!bps) return std::nullopt;
  bw.kind = BandwidthTarget::Kind::kAbsolute;
  bw.bits_per_s = *bps;
  return bw;
}

std::string FormatBandwidth(const BandwidthTarget& bw) {
  char buf[48];
  switch (bw.kind) {
    case BandwidthTarget::Kind::kNone:
      return "native";
    case BandwidthTarget::Kind::kFraction:
      std::snprintf(buf, sizeof buf, "%g%%", bw.fraction * 100);
      return buf;
    case BandwidthTarget::Kind::kAbsolute:
      return units::FormatBitsPerS(bw.bits_per_s);
  }
  return "?";
}

}  // namespace verbsemu::emulate
