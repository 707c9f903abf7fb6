// Fuzzes json_get's lookup: the first line of the input is a JSON pointer
// (empty: none), the rest the JSON text. Every input gives a status of 0, 1
// or 3, with a reason when it is not 0; nothing may throw.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "verbsbench/json_query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  std::optional<std::string> pointer;
  std::string_view text = input;
  if (nl != std::string_view::npos) {
    if (nl > 0) pointer = std::string(input.substr(0, nl));
    text = input.substr(nl + 1);
  }
  for (bool want_size : {false, true}) {
    const verbsbench::JsonQuery q =
        verbsbench::QueryJson(text, pointer, want_size);
    if (q.status != 0 && q.status != 1 && q.status != 3) std::abort();
    if (q.status != 0 && q.error.empty()) std::abort();
    if (q.status == 0 && pointer && q.out.empty()) std::abort();
  }
  return 0;
}
