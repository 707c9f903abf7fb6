// Fuzzes what --resume reads back from a sweep directory: runs.csv (the
// first byte 'c') and plan.json (anything else). Each must give records or
// a reason, and what it accepts must write back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sweep/plan.h"
#include "sweep/runs_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 8192) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string why;
  if (data[0] == 'c') {
    const auto runs = verbsemu::sweep::ReadRunsCsv(
        verbsemu::sweep::RunsCsvHeader() + "\n" + text, &why);
    if (!runs) {
      if (why.empty()) std::abort();
      return 0;
    }
    // Written again and read back, the rows are the same.
    std::string again = verbsemu::sweep::RunsCsvHeader() + "\n";
    for (const auto& r : *runs) again += verbsemu::sweep::RunsCsvRow(r) + "\n";
    const auto back = verbsemu::sweep::ReadRunsCsv(again, &why);
    if (!back || back->size() != runs->size()) std::abort();
    for (size_t i = 0; i < runs->size(); ++i) {
      if (verbsemu::sweep::RunsCsvRow((*back)[i]) !=
          verbsemu::sweep::RunsCsvRow((*runs)[i])) {
        std::abort();
      }
    }
    return 0;
  }
  const auto plan = verbsemu::sweep::PlanFromJson(text, &why);
  if (!plan && why.empty()) std::abort();
  if (plan && !verbsemu::sweep::PlanFromJson(verbsemu::sweep::PlanToJson(*plan),
                                             &why)) {
    std::abort();
  }
  return 0;
}
