// Fuzzes the writers that read a run's JSON (table, CSV, histograms, raw
// samples, JSON): any document gives output or an exception the CLI turns
// into one line; never a crash, an assertion or undefined behaviour.
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "verbsbench/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json run =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (run.is_discarded()) return 0;
  for (auto* writer : {verbsbench::PrintTable, verbsbench::WriteCsv,
                       verbsbench::WriteHistograms, verbsbench::WriteRaw,
                       verbsbench::WriteJson}) {
    std::ostringstream out;
    try {
      writer(run, out);
    } catch (const std::exception&) {
      // A clean refusal: the CLI prints e.what() as one line.
    }
  }
  return 0;
}
