// Fuzzes lopfit's reader of verbsbench lop JSON and the analysis behind it:
// any input is either a run or a LopInputError; nothing else may escape
// (an uncaught exception aborts the fuzzer).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/lop/lop_analysis.h"
#include "models/lop/lop_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using verbsemu::fit::LopInputError;
  try {
    const verbsemu::fit::LopRun run =
        verbsemu::fit::ParseLopText(text, "fuzz input");
    if (run.curves.empty()) std::abort();  // the parser promises curves
    for (const auto& curve : run.curves) {
      if (curve.points.empty()) std::abort();
    }
    verbsemu::fit::AnalysisOptions options;
    options.stat = verbsemu::fit::Stat::kMin;
    verbsemu::fit::Analyze(run, options);
  } catch (const LopInputError& e) {
    if (std::string_view(e.what()).empty()) std::abort();  // always a reason
  }
  return 0;
}
