// Fuzzes the delay parser: every input is accepted or refused with a reason,
// never crashes, and what it accepts describes itself as text that parses
// back to the same law, and samples within [0, 1 s] with a monotone CDF.
// An input starting "replay:" is a first line naming the file and a rest
// that is the file's text, so the JSON path is fuzzed too.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "emulate/delay_distribution.h"

namespace {

using verbsemu::emulate::DelayDistribution;
using verbsemu::emulate::kMaxDelayNs;

void Require(bool condition) {
  if (!condition) std::abort();
}

void CheckLaw(const DelayDistribution& d) {
  constexpr std::array<uint64_t, 6> kBits = {0,
                                             ~uint64_t{0},
                                             uint64_t{1} << 63,
                                             0x5555555555555555,
                                             0x0123456789abcdef,
                                             0xfffffffffffff000};
  for (const uint64_t bits : kBits) {
    const double x = d.Sample(bits);
    Require(std::isfinite(x) && x >= 0 && x <= kMaxDelayNs);
  }
  const double mean = d.Mean();
  Require(std::isfinite(mean) && mean >= 0 && mean <= kMaxDelayNs);
  std::array<double, 8> points = {-1.0,
                                  0.0,
                                  d.Quantile(0.1),
                                  mean,
                                  d.Quantile(0.5),
                                  d.Quantile(0.9),
                                  kMaxDelayNs / 2,
                                  kMaxDelayNs};
  std::sort(points.begin(), points.end());
  for (size_t i = 0; i < points.size(); ++i) {
    const double below = d.CdfBelow(points[i]), at = d.Cdf(points[i]);
    Require(0 <= below && below <= at && at <= 1);
    // Between two distinct points the CDF cannot fall.
    if (i > 0 && points[i - 1] < points[i]) {
      Require(d.Cdf(points[i - 1]) <= below);
    }
  }
  Require(d.Cdf(kMaxDelayNs) == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string file;
  if (text.starts_with("replay:") &&
      text.find('\n') != std::string_view::npos) {
    file = std::string(text.substr(text.find('\n') + 1));
    text = text.substr(0, text.find('\n'));
  }
  const verbsemu::emulate::FileReader read =
      [&file](const std::string&, std::string*) -> std::optional<std::string> {
    return file;
  };
  std::string why;
  const auto law = verbsemu::emulate::ParseDelayDistribution(text, &why, read);
  if (!law) {
    Require(!why.empty());  // a refusal always says why
    return 0;
  }
  CheckLaw(*law);
  std::string described = law->Describe();
  if (law->family() == DelayDistribution::Family::kReplay) {
    described.resize(described.rfind(" ("));
  }
  const auto again =
      verbsemu::emulate::ParseDelayDistribution(described, nullptr, read);
  Require(again.has_value() && *again == *law);
  return 0;
}
