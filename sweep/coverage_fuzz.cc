// Fuzzes the judging of shim JSON reports: the input, split at NUL bytes,
// is a run's report files. JudgeReports must count and judge them without
// crashing, and give a reason whenever it finds the run not emulated.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sweep/coverage.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t at = 0; at <= all.size();) {
    const size_t end = std::min(all.find('\0', at), all.size());
    files.emplace_back("h." + std::to_string(files.size()) + ".txt.json",
                       std::string(all.substr(at, end - at)));
    at = end + 1;
  }
  const verbsemu::sweep::Coverage c = verbsemu::sweep::JudgeReports(files);
  if (c.reports < 0) std::abort();
  if (!c.valid && c.reason.empty()) std::abort();
  return 0;
}
