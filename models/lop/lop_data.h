// The `lop` section of verbsbench's --json output, parsed and validated.
// The keys are verbsbench's lop contract (contract.h).
#ifndef VERBSEMU_MODELS_LOP_LOP_DATA_H_
#define VERBSEMU_MODELS_LOP_LOP_DATA_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/lop/contract.h"

namespace verbsemu::fit {

// Every input problem is reported as one of these, with a one-line message.
class LopInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Stat { kMin, kMedian, kMean };
using CurveKind = verbsbench::lop::Kind;

// "min", "median", "mean"; nullopt otherwise.
std::optional<Stat> ParseStat(const std::string& s);
const char* StatName(Stat s);
const char* CurveKindName(CurveKind k);

struct LopPoint {
  double p = 0;
  // median_ns falls back to "p50_ns" if the point has no "median_ns".
  std::optional<double> min_ns, median_ns, mean_ns, p99_ns;
  std::optional<std::int64_t> samples;
};

struct LopCurve {
  std::string name;
  CurveKind kind = CurveKind::kRtt;
  std::string pattern;  // "1:n" / "n:1" (rtt, latency); may be empty.
  std::string op;       // "send", "write", ...; may be empty.
  std::string side;     // "send" / "recv" (overhead); may be empty.
  std::optional<bool> is_inline;
  bool list = false;
  std::vector<LopPoint> points;  // Sorted by p, p unique and > 0.

  // The statistic for point i; throws LopInputError if it is missing.
  double Value(std::size_t i, Stat stat) const;
};

// clang-tidy 14 takes the implicit move of nlohmann::json members for
// throwing; it is noexcept.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LopRun {
  nlohmann::json params;  // Copied through; null if absent.
  nlohmann::json device;
  std::vector<LopCurve> curves;
};

// Validates and converts. Throws LopInputError.
LopRun ParseLop(const nlohmann::json& doc);
// Parses the text of a lop JSON document; `origin` (a path) names it in
// messages. Throws LopInputError, and only that, on any bad input.
LopRun ParseLopText(std::string_view text, const std::string& origin);
// Reads and parses a file. Throws LopInputError (missing file, not JSON,
// not lop mode, no curves, ...).
LopRun LoadLop(const std::string& path);

// Reads a file and parses JSON; throws LopInputError with the path in the
// message. Shared with the histogram extractor.
nlohmann::json LoadJsonFile(const std::string& path);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOP_LOP_DATA_H_
