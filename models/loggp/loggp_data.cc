#include "models/loggp/loggp_data.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "models/loggp/contract.h"
#include "models/loggp/derive.h"

namespace verbsemu::fit {
namespace {

using nlohmann::json;
namespace lg = verbsbench::loggp;
namespace lk = verbsbench::loggp::key;

// Largest size and train accepted (keeps every conversion defined).
constexpr double kMaxSize = 1e12;
constexpr double kMaxN = 1e9;
// Far more sizes than a run has (powers of two up to 1 GiB are 31); keeps
// the segmentation's O(sizes³) small.
constexpr std::size_t kMaxPoints = 1000;

std::string Integer(double v) {
  return std::to_string(static_cast<long long>(v));
}

double Number(const json& obj, const char* field, const std::string& where) {
  if (!obj.is_object() || !obj.contains(field)) {
    throw LoggpInputError(where + " has no \"" + field + "\"");
  }
  if (!obj[field].is_number()) {
    throw LoggpInputError(where + ": \"" + field + "\" must be a number");
  }
  const double v = obj[field].get<double>();
  if (!std::isfinite(v)) {
    throw LoggpInputError(where + ": \"" + field + "\" is not finite");
  }
  return v;
}

// The measured entry's statistic.
double Measured(const json& pt, const char* entry, const char* stat,
                const std::string& where) {
  if (!pt.contains(entry) || !pt[entry].is_object()) {
    throw LoggpInputError(where + " has no measured \"" + entry + "\"");
  }
  return Number(pt[entry], stat, where + " \"" + entry + "\"");
}

// DerivePoint for one statistic. DerivePoint derives every statistic of
// kDerivedStats and a file need not hold the one not chosen: each entry
// gets the chosen value under every statistic's key, so only it is used.
json DeriveFor(const json& pt, double delay, const char* stat, int n) {
  json one = {{lk::kDelayNs, delay}};
  for (const char* entry : lg::kMeasured) {
    for (const char* s : lg::kDerivedStats) one[entry][s] = pt[entry][stat];
  }
  return lg::DerivePoint(one, n).at(stat);
}

void ReadOptional(const json& pt, LoggpPoint& p, const std::string& where) {
  if (pt.contains(lk::kOp) && !pt[lk::kOp].is_null()) {
    if (!pt[lk::kOp].is_string()) {
      throw LoggpInputError(where + ": \"op\" must be a string");
    }
    p.op = pt[lk::kOp].get<std::string>();
  }
  if (pt.contains(lk::kInline) && !pt[lk::kInline].is_null()) {
    if (!pt[lk::kInline].is_boolean()) {
      throw LoggpInputError(where + ": \"inline\" must be true or false");
    }
    p.is_inline = pt[lk::kInline].get<bool>();
  }
}

LoggpPoint ParsePoint(const json& pt, std::size_t index, LoggpStat stat,
                      int n) {
  std::string where = "point #" + std::to_string(index);
  if (!pt.is_object()) throw LoggpInputError(where + " is not an object");
  LoggpPoint p;
  p.size = Number(pt, lk::kSize, where);
  if (p.size < 0 || p.size > kMaxSize || std::floor(p.size) != p.size) {
    throw LoggpInputError(where +
                          ": \"size\" must be a whole number of "
                          "bytes from 0 to 1e12");
  }
  where = "size " + Integer(p.size);
  ReadOptional(pt, p, where);
  p.delay = Number(pt, lk::kDelayNs, where);
  if (p.delay < 0) throw LoggpInputError(where + ": \"delay_ns\" < 0");
  const char* key = LoggpStatKey(stat);
  p.prtt_1_0 = Measured(pt, lk::kPrtt10, key, where);
  p.prtt_n_0 = Measured(pt, lk::kPrttN0, key, where);
  p.prtt_n_d = Measured(pt, lk::kPrttNd, key, where);
  p.o_r = Measured(pt, lk::kOr, key, where);
  const json d = DeriveFor(pt, p.delay, key, n);
  p.gap = d.at(lk::kGapNs).get<double>();
  p.o_s = d.at(lk::kOsNs).get<double>();
  p.half_rtt = d.at(lk::kHalfRttNs).get<double>();
  p.delay_covers_gap = d.at(lk::kDelayCoversGap).get<bool>();
  p.sender_bound = d.at(lk::kSenderBound).get<bool>();
  if (!std::isfinite(p.gap) || !std::isfinite(p.o_s)) {
    throw LoggpInputError(where + ": values too large to derive from");
  }
  return p;
}

const json& Section(const json& doc) {
  if (!doc.is_object()) throw LoggpInputError("input is not a JSON object");
  if (doc.contains("mode") && doc["mode"].is_string() &&
      doc["mode"] != lg::kSection) {
    throw LoggpInputError("input is verbsbench mode '" +
                          doc["mode"].get<std::string>() +
                          "' output; loggpfit needs `verbsbench loggp --json`");
  }
  if (!doc.contains(lg::kSection) || !doc[lg::kSection].is_object()) {
    throw LoggpInputError(
        "input has no \"loggp\" section (not verbsbench loggp output)");
  }
  return doc[lg::kSection];
}

}  // namespace

std::optional<LoggpStat> ParseLoggpStat(const std::string& s) {
  if (s == "min") return LoggpStat::kMin;
  if (s == "median") return LoggpStat::kMedian;
  return std::nullopt;
}

const char* LoggpStatName(LoggpStat s) {
  return s == LoggpStat::kMin ? "min" : "median";
}

const char* LoggpStatKey(LoggpStat s) {
  return s == LoggpStat::kMin ? lg::kDerivedStats[0] : lg::kDerivedStats[1];
}

LoggpRun ParseLoggp(const json& doc, LoggpStat stat) {
  const json& section = Section(doc);
  LoggpRun run;
  run.stat = stat;
  if (doc.contains("params")) run.params = doc["params"];
  if (doc.contains("device")) run.device = doc["device"];
  const double n = Number(section, lk::kN, "\"loggp\"");
  if (n < 2 || n > kMaxN || std::floor(n) != n) {
    throw LoggpInputError("\"loggp\".\"n\" must be a whole number >= 2");
  }
  run.n = static_cast<int>(n);
  if (!section.contains(lg::kPoints) || !section[lg::kPoints].is_array()) {
    throw LoggpInputError("\"loggp\" has no \"points\" array");
  }
  if (section[lg::kPoints].size() > kMaxPoints) {
    throw LoggpInputError("\"loggp\" has more than " +
                          std::to_string(kMaxPoints) + " points");
  }
  for (const json& pt : section[lg::kPoints]) {
    run.points.push_back(ParsePoint(pt, run.points.size(), stat, run.n));
    const std::size_t k = run.points.size();
    if (k > 1 && run.points[k - 1].size <= run.points[k - 2].size) {
      throw LoggpInputError(
          "sizes are not increasing: " + Integer(run.points[k - 1].size) +
          " after " + Integer(run.points[k - 2].size));
    }
  }
  if (run.points.empty()) throw LoggpInputError("\"loggp\" has no points");
  return run;
}

LoggpRun ParseLoggpText(std::string_view text, const std::string& origin,
                        LoggpStat stat) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    // e.what() is one line: "[json.exception.parse_error.101] parse ...".
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw LoggpInputError("'" + origin + "' is not valid JSON: " + what);
  }
  try {
    return ParseLoggp(doc, stat);
  } catch (const LopInputError& e) {
    throw LoggpInputError("'" + origin + "': " + e.what());
  } catch (const json::exception& e) {
    throw LoggpInputError("'" + origin + "': " + e.what());
  }
}

LoggpRun LoadLoggp(const std::string& path, LoggpStat stat) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LoggpInputError("cannot open '" + path + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw LoggpInputError("cannot read '" + path + "'");
  return ParseLoggpText(buf.str(), path, stat);
}

}  // namespace verbsemu::fit
