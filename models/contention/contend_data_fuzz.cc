// Fuzzes the contention measurement reader: any bytes read as a
// measurement or give one line saying why not; what is read, written and
// read again, is the same.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "models/contention/contend_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto d = verbsemu::contention::ParseContend(text, &why);
  if (!d) {
    if (why.empty() || why.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const std::string written = verbsemu::contention::WriteContend(*d);
  const auto again = verbsemu::contention::ParseContend(written, &why);
  if (!again || verbsemu::contention::WriteContend(*again) != written)
    std::abort();
  return 0;
}
