// Fuzzes the metric: the first line is the --metric spec, the rest the
// command's output (or, for json:, the file's text). Parsing and reading
// must return a value or a reason, never crash.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sweep/metric.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t nl = all.find('\n');
  if (nl == std::string_view::npos || nl > 200) return 0;
  if (all.size() > 4096) return 0;
  std::string why;
  const auto m =
      verbsemu::sweep::Metric::Parse(all.substr(0, nl), "f.json", &why);
  if (!m) {
    if (why.empty()) std::abort();
    return 0;
  }
  const std::string_view rest = all.substr(nl + 1);
  const auto v = m->kind() == verbsemu::sweep::Metric::Kind::kJson
                     ? m->FromJson(rest, &why)
                     : m->FromOutput(rest, 1.0, &why);
  if (v ? !std::isfinite(*v) : why.empty()) std::abort();
  return 0;
}
