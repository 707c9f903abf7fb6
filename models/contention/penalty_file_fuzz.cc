// Fuzzes the penalties file reader: any bytes read as a penalties file or
// give one line saying why not; what is read is written and read back the
// same, and gives penalties >= 1 for a graph.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "models/contention/penalty_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verbsemu::contention;
  if (size > 65536) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto f = ParsePenaltyFile(text, &why);
  if (!f) {
    if (why.empty() || why.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const std::string written = WritePenaltyFile(*f);
  const auto again = ParsePenaltyFile(written, &why);
  if (!again || WritePenaltyFile(*again) != written) std::abort();
  for (const auto& [form, rho] : f->shapes) {
    const auto g = ParseGraph(form, &why);
    if (!g) std::abort();
    for (const double r : (*f)(*g))
      if (!(r >= 1)) std::abort();
  }
  return 0;
}
