// Fuzzes what a verbsbench process does with bytes from its control
// connection: framing (a bounded line buffer, fed in chunks the input
// chooses), JSON parsing, and every message's typed decoder, as the peer
// (commands) and the root (replies) run them. Any input gives messages or
// an exception the process turns into one line; never a crash, undefined
// behaviour or an allocation beyond the line bound.
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "verbsbench/internal/line_buffer.h"
#include "verbsbench/internal/protocol.h"

namespace {

using namespace verbsbench::internal;

void DecodeEverything(const std::string& line) {
  const nlohmann::json j =
      nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  try {
    (void)DecodeCommand(j);
  } catch (const std::exception&) {
  }
  const auto each = [&j](auto decode) {
    try {
      (void)decode(j);
    } catch (const std::exception&) {
    }
  };
  each(Ready::Decode);
  each(Done::Decode);
  each(PeerResult::Decode);
  each(Error::Decode);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte chooses the chunk size the bytes arrive in.
  const size_t chunk = 1 + data[0] % 64;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  LineBuffer lines(4096);
  try {
    while (!rest.empty()) {
      const size_t n = rest.size() < chunk ? rest.size() : chunk;
      lines.Append(rest.substr(0, n), "fuzz");
      rest.remove_prefix(n);
      while (auto line = lines.Next()) DecodeEverything(*line);
    }
  } catch (const std::exception&) {
    // A line beyond the bound: the process stops with one line.
  }
  return 0;
}
