// The `loggp` section of `verbsbench loggp --json` output, parsed and
// validated for one statistic. The keys are verbsbench's loggp contract
// (contract.h); the derived values are recomputed with
// verbsbench::loggp::DerivePoint, not read from the file.
#ifndef VERBSEMU_MODELS_LOGGP_LOGGP_DATA_H_
#define VERBSEMU_MODELS_LOGGP_LOGGP_DATA_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/lop/lop_data.h"

namespace verbsemu::fit {

// Every loggp input problem, with a one-line message. A LopInputError, so
// LoadJsonFile's errors and these are caught alike.
class LoggpInputError : public LopInputError {
 public:
  using LopInputError::LopInputError;
};

// The statistics a loggp point is derived for (verbsbench::loggp::
// kDerivedStats): the minimum, and the median Netgauge uses.
enum class LoggpStat { kMin, kMedian };
// "min", "median"; nullopt otherwise.
std::optional<LoggpStat> ParseLoggpStat(const std::string& s);
const char* LoggpStatName(LoggpStat s);
// The contract's key of the statistic: "min_ns" or "median_ns".
const char* LoggpStatKey(LoggpStat s);

// One message size, in the chosen statistic (ns).
struct LoggpPoint {
  double size = 0;
  std::string op;  // may be empty
  std::optional<bool> is_inline;
  double delay = 0;  // d of PRTT(n,d,s)
  double prtt_1_0 = 0, prtt_n_0 = 0, prtt_n_d = 0, o_r = 0;
  // DerivePoint's values for the statistic.
  double gap = 0, o_s = 0, half_rtt = 0;
  bool delay_covers_gap = false, sender_bound = false;
};

// clang-tidy cannot see that moving the json members does not throw.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LoggpRun {
  nlohmann::json params;  // copied through; null if absent
  nlohmann::json device;
  LoggpStat stat = LoggpStat::kMedian;
  int n = 0;                       // messages per train, >= 2
  std::vector<LoggpPoint> points;  // sizes strictly increasing
};

// Validates and converts. Throws LoggpInputError.
LoggpRun ParseLoggp(const nlohmann::json& doc, LoggpStat stat);
// Parses the text of a run; `origin` names it in messages. Throws
// LopInputError (a LoggpInputError for a JSON that is not a good run), and
// only that, on any bad input.
LoggpRun ParseLoggpText(std::string_view text, const std::string& origin,
                        LoggpStat stat);
// Reads and parses a file. Throws LopInputError.
LoggpRun LoadLoggp(const std::string& path, LoggpStat stat);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOGGP_LOGGP_DATA_H_
