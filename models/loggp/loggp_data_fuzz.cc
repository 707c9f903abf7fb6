// Fuzzes loggpfit's reader of verbsbench loggp JSON and the fit behind it:
// any input is either an analysis or a LopInputError; nothing else may
// escape (an uncaught exception aborts the fuzzer).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/loggp/loggp_data.h"
#include "models/loggp/loggp_fit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace fit = verbsemu::fit;
  for (fit::LoggpStat stat : {fit::LoggpStat::kMin, fit::LoggpStat::kMedian}) {
    try {
      const fit::LoggpRun run = fit::ParseLoggpText(text, "fuzz input", stat);
      if (run.points.empty() || run.n < 2) std::abort();  // promised
      const fit::LoggpAnalysis a = fit::AnalyzeLoggp(run);
      if (a.sizes.size() != run.points.size()) std::abort();
      if (a.identified() == a.segments.empty()) std::abort();
    } catch (const fit::LopInputError& e) {
      if (std::string_view(e.what()).empty()) std::abort();  // a reason
    }
  }
  return 0;
}
