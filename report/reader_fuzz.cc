// Fuzzes the JSON report reader: any bytes either read as a report or give
// one line saying why not; a report read is judged without crashing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "report/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto r = verbsemu::report::ParseReport(text, &why);
  if (!r) {
    if (why.empty() || why.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const std::string not_emulated = verbsemu::report::NotEmulated(*r);
  if (!r->emulated && not_emulated.empty()) std::abort();
  if (r->pid <= 0) std::abort();
  return 0;
}
