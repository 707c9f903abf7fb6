// Fuzzes sweep.json's writer with whatever bytes runs print: the input,
// split at NUL bytes, fills a run's text fields, its report and the
// command. SweepJson must not throw, and what it writes must parse.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/engine.h"
#include "sweep/output.h"

namespace {

std::vector<std::string> Pieces(std::string_view all) {
  std::vector<std::string> out;
  for (size_t at = 0; out.size() < 9;) {
    const size_t end = std::min(all.find('\0', at), all.size());
    out.emplace_back(all.substr(std::min(at, all.size()), end - at));
    at = end + 1;
    if (at > all.size()) at = all.size();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  namespace sw = verbsemu::sweep;
  const std::vector<std::string> p =
      Pieces({reinterpret_cast<const char*>(data), size});
  sw::RunRecord r;
  r.program = p[0];
  r.latency = p[1];
  r.bandwidth = p[2];
  r.bw_mode = p[3];
  r.status = p[4];
  r.reason = sw::LastLine(p[5]);
  sw::SweepPlan plan;
  plan.command = {"/bin/true", p[6]};
  plan.metric = p[7];
  const std::vector<std::vector<std::pair<std::string, std::string>>> reports =
      {{{p[8], p[5]}}};
  const std::string json = sw::SweepJson(plan, sw::Analysis{}, {r}, reports);
  if (!nlohmann::json::accept(json)) std::abort();
  return 0;
}
