#include "models/lop/lop_data.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace verbsemu::fit {
namespace {

using nlohmann::json;
namespace key = verbsbench::lop::key;

// Largest p accepted (keeps every conversion of p defined).
constexpr double kMaxP = 1e9;

std::string CurveLabel(const json& c, std::size_t index) {
  if (c.is_object() && c.contains(key::kName) && c[key::kName].is_string()) {
    return "curve '" + c[key::kName].get<std::string>() + "'";
  }
  return "curve #" + std::to_string(index);
}

std::string OptString(const json& c, const char* field,
                      const std::string& where) {
  if (!c.contains(field) || c[field].is_null()) return "";
  if (!c[field].is_string()) {
    throw LopInputError(where + ": \"" + field + "\" must be a string");
  }
  return c[field].get<std::string>();
}

std::optional<double> OptNumber(const json& pt, const char* field,
                                const std::string& where) {
  if (!pt.contains(field) || pt[field].is_null()) return std::nullopt;
  if (!pt[field].is_number()) {
    throw LopInputError(where + ": \"" + field + "\" must be a number");
  }
  const double v = pt[field].get<double>();
  if (!std::isfinite(v)) {
    throw LopInputError(where + ": \"" + field + "\" is not finite");
  }
  return v;
}

LopPoint ParsePoint(const json& pt, const std::string& where) {
  if (!pt.is_object()) {
    throw LopInputError(where + ": a point is not an object");
  }
  LopPoint point;
  auto p = OptNumber(pt, key::kP, where);
  if (!p || *p <= 0 || std::floor(*p) != *p) {
    throw LopInputError(where + ": every point needs a positive integer \"p\"");
  }
  if (*p > kMaxP) throw LopInputError(where + ": \"p\" above 1e9");
  point.p = *p;
  const std::string pw =
      where + " p=" + std::to_string(static_cast<long long>(*p));
  point.min_ns = OptNumber(pt, key::kMinNs, pw);
  point.median_ns = OptNumber(pt, key::kMedianNs, pw);
  if (!point.median_ns)
    point.median_ns = OptNumber(pt, key::kMedianFallbackNs, pw);
  point.mean_ns = OptNumber(pt, key::kMeanNs, pw);
  point.p99_ns = OptNumber(pt, key::kP99Ns, pw);
  if (auto s = OptNumber(pt, key::kSamples, pw)) {
    if (*s < 0 || *s > 9e18) {
      throw LopInputError(pw + ": \"samples\" out of range");
    }
    point.samples = static_cast<std::int64_t>(*s);
  }
  return point;
}

LopCurve ParseCurve(const json& c, std::size_t index) {
  const std::string where = CurveLabel(c, index);
  if (!c.is_object()) throw LopInputError(where + " is not an object");
  LopCurve curve;
  curve.name = OptString(c, key::kName, where);
  if (curve.name.empty()) curve.name = "curve" + std::to_string(index);
  const std::string kind = OptString(c, key::kKind, where);
  const std::optional<CurveKind> parsed = verbsbench::lop::ParseKind(kind);
  if (!parsed) {
    throw LopInputError(where + ": unknown \"kind\" '" + kind +
                        "' (expected round, rtt, overhead or latency)");
  }
  curve.kind = *parsed;
  if (curve.kind == CurveKind::kRtt && curve.name.starts_with("rtt2_")) {
    // Older files' "rtt" curves held whole rounds; fitting them as the
    // per-peer t_rtt would be off by p.
    throw LopInputError(where +
                        " holds whole rounds (a verbsbench from before t_rtt "
                        "per peer): rerun verbsbench lop");
  }
  curve.pattern = OptString(c, key::kPattern, where);
  curve.op = OptString(c, key::kOp, where);
  curve.side = OptString(c, key::kSide, where);
  if (c.contains(key::kInline) && !c[key::kInline].is_null()) {
    if (!c[key::kInline].is_boolean()) {
      throw LopInputError(where + ": \"inline\" must be true or false");
    }
    curve.is_inline = c[key::kInline].get<bool>();
  }
  if (c.contains(key::kList) && !c[key::kList].is_null()) {
    if (!c[key::kList].is_boolean()) {
      throw LopInputError(where + ": \"list\" must be true or false");
    }
    curve.list = c[key::kList].get<bool>();
  }
  if (!c.contains(key::kPoints) || !c[key::kPoints].is_array()) {
    throw LopInputError(where + " has no \"points\" array");
  }
  for (const json& pt : c[key::kPoints]) {
    curve.points.push_back(ParsePoint(pt, where));
  }
  if (curve.points.empty()) throw LopInputError(where + " has no points");
  std::sort(curve.points.begin(), curve.points.end(),
            [](const LopPoint& a, const LopPoint& b) { return a.p < b.p; });
  for (std::size_t i = 1; i < curve.points.size(); ++i) {
    if (curve.points[i].p == curve.points[i - 1].p) {
      throw LopInputError(
          where + ": duplicate point p=" +
          std::to_string(static_cast<long long>(curve.points[i].p)));
    }
  }
  return curve;
}

}  // namespace

std::optional<Stat> ParseStat(const std::string& s) {
  if (s == "min") return Stat::kMin;
  if (s == "median") return Stat::kMedian;
  if (s == "mean") return Stat::kMean;
  return std::nullopt;
}

const char* StatName(Stat s) {
  switch (s) {
    case Stat::kMin:
      return "min";
    case Stat::kMedian:
      return "median";
    case Stat::kMean:
      return "mean";
  }
  return "?";
}

const char* CurveKindName(CurveKind k) { return verbsbench::lop::KindName(k); }

double LopCurve::Value(std::size_t i, Stat stat) const {
  const LopPoint& pt = points.at(i);
  const std::optional<double>* v = nullptr;
  switch (stat) {
    case Stat::kMin:
      v = &pt.min_ns;
      break;
    case Stat::kMedian:
      v = &pt.median_ns;
      break;
    case Stat::kMean:
      v = &pt.mean_ns;
      break;
  }
  if (!v->has_value()) {
    throw LopInputError("curve '" + name +
                        "' p=" + std::to_string(static_cast<long long>(pt.p)) +
                        " has no \"" + StatName(stat) + "_ns\"");
  }
  return **v;
}

LopRun ParseLop(const json& doc) {
  if (!doc.is_object()) {
    throw LopInputError("input is not a JSON object");
  }
  if (!doc.contains(verbsbench::lop::kSection)) {
    if (doc.contains("mode") && doc["mode"].is_string() &&
        doc["mode"] != "lop") {
      throw LopInputError("input is verbsbench mode '" +
                          doc["mode"].get<std::string>() +
                          "' output; lopfit needs `verbsbench lop --json`");
    }
    throw LopInputError(
        "input has no \"lop\" section (not verbsbench lop output)");
  }
  const json& lop = doc[verbsbench::lop::kSection];
  if (!lop.is_object() || !lop.contains(verbsbench::lop::kCurves) ||
      !lop[verbsbench::lop::kCurves].is_array()) {
    throw LopInputError("\"lop\" has no \"curves\" array");
  }
  LopRun run;
  if (doc.contains("params")) run.params = doc["params"];
  if (doc.contains("device")) run.device = doc["device"];
  std::size_t index = 0;
  for (const json& c : lop[verbsbench::lop::kCurves]) {
    run.curves.push_back(ParseCurve(c, index++));
  }
  if (run.curves.empty()) throw LopInputError("\"lop\".\"curves\" is empty");
  for (std::size_t i = 0; i < run.curves.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (run.curves[i].name == run.curves[j].name) {
        throw LopInputError("two curves are named '" + run.curves[i].name +
                            "'");
      }
    }
  }
  return run;
}

namespace {

json ParseJsonText(std::string_view text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // A syntax error (parse_error) or a number too large for a double
    // (out_of_range). e.what() is one line: "[json.exception.parse_error.101]
    // parse error at line 3, column 5: ...".
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw LopInputError("'" + origin + "' is not valid JSON: " + what);
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LopInputError("cannot open '" + path + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw LopInputError("cannot read '" + path + "'");
  return buf.str();
}

}  // namespace

json LoadJsonFile(const std::string& path) {
  return ParseJsonText(ReadFile(path), path);
}

LopRun ParseLopText(std::string_view text, const std::string& origin) {
  const json doc = ParseJsonText(text, origin);
  try {
    return ParseLop(doc);
  } catch (const LopInputError& e) {
    throw LopInputError("'" + origin + "': " + e.what());
  } catch (const json::exception& e) {
    // A value of an unexpected type deep in the document.
    throw LopInputError("'" + origin + "': " + e.what());
  }
}

LopRun LoadLop(const std::string& path) {
  return ParseLopText(ReadFile(path), path);
}

}  // namespace verbsemu::fit
