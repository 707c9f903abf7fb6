// Fuzzes the comparison's reader and engine: the input is one run document,
// or two separated by a NUL byte. Each parses into a Run or an InputError
// with a one-line message; two runs compare into a result or an InputError;
// a run against itself is at distance 0 with every ratio 1 or undefined.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "verbsbench/compare/compare.h"
#include "verbsbench/compare/format.h"
#include "verbsbench/compare/run.h"

namespace {

using verbsbench::compare::InputError;
using verbsbench::compare::Run;

std::optional<Run> Parse(std::string_view text, const char* label) {
  const nlohmann::json doc =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  try {
    return verbsbench::compare::ParseRun(doc, label);
  } catch (const InputError& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) {
      std::abort();  // errors are one line
    }
    return std::nullopt;
  }
}

void CompareAndWrite(const Run& a, const Run& b) {
  namespace cmp = verbsbench::compare;
  try {
    const cmp::Comparison c = cmp::Compare(a, b);
    cmp::Thresholds t;
    t.max_ratio["p50"] = 1.1;
    t.max_ks = 0.1;
    const auto crossings = cmp::Judge(c, t);
    std::ostringstream out;
    cmp::PrintComparison(c, out);
    cmp::PrintVerdict(c, t, crossings, out);
    out << cmp::ComparisonJson(c, t, crossings).dump();
    if (&a != &b) return;
    for (const cmp::PointComparison& p : c.points) {
      if (p.ks != 0 || p.wasserstein_ns != 0) std::abort();
      for (const cmp::QuantileRatio& q : p.quantiles) {
        if (!std::isnan(q.ratio) && q.ratio != 1) std::abort();
      }
    }
  } catch (const InputError&) {
    if (&a == &b) std::abort();  // a run always matches itself
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::optional<Run> a = Parse(input.substr(0, nul), "a.json");
  if (!a) return 0;
  if (nul == std::string_view::npos) {
    CompareAndWrite(*a, *a);
    return 0;
  }
  const std::optional<Run> b = Parse(input.substr(nul + 1), "b.json");
  if (b) CompareAndWrite(*a, *b);
  return 0;
}
