#include "verbsbench/compare/run.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/json_number.h"
#include "models/lop/contract.h"

namespace verbsbench::compare {
namespace {

using nlohmann::json;

// Reads one run document, its errors naming the file and where in it.
class Reader {
 public:
  explicit Reader(const std::string& label) : label_(label) {}

  [[noreturn]] void Fail(const std::string& where,
                         const std::string& what) const {
    throw InputError(label_ + ": " + (where.empty() ? "" : where + ": ") +
                     what);
  }

  const json& Member(const json& j, const char* key,
                     const std::string& where) const {
    if (!j.is_object()) Fail(where, "not an object");
    const auto it = j.find(key);
    if (it == j.end()) Fail(where, std::string("no '") + key + "'");
    return *it;
  }

  double Number(const json& j, const std::string& where) const {
    if (!j.is_number()) Fail(where, "not a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) Fail(where, "not a finite number");
    return v;
  }

  uint64_t Whole(const json& j, const std::string& where) const {
    const std::optional<uint64_t> n = base::WholeNumber<uint64_t>(j);
    if (!n) Fail(where, "not a whole number");
    return *n;
  }

  std::string Text(const json& j, const std::string& where) const {
    if (!j.is_string()) Fail(where, "not a string");
    return j.get<std::string>();
  }

  bool Flag(const json& j, const char* key, const std::string& where) const {
    const auto it = j.find(key);
    if (it == j.end()) return false;
    if (!it->is_boolean()) Fail(where + "/" + key, "not true or false");
    return it->get<bool>();
  }

  std::vector<Bin> Bins(const json& hist, const std::string& where) const {
    if (!hist.is_array() || hist.empty()) Fail(where, "no bins");
    std::vector<Bin> bins;
    for (size_t i = 0; i < hist.size(); ++i) {
      const std::string at = where + "/" + std::to_string(i);
      bins.push_back({Number(Member(hist[i], "lo_ns", at), at + "/lo_ns"),
                      Number(Member(hist[i], "hi_ns", at), at + "/hi_ns"),
                      Number(Member(hist[i], "count", at), at + "/count")});
    }
    if (const char* problem = BinsProblem(bins)) Fail(where, problem);
    return bins;
  }

  // The distribution of `owner` (a lat/bw result or a lop point): its
  // "stats" object and its "raw_ns" samples.
  void Distribution(const json& owner, const std::string& where,
                    Point& p) const;

 private:
  const std::string& label_;
};

// The stats object's quantiles, by their short names.
constexpr std::pair<const char*, const char*> kStatsQuantiles[] = {
    {"min", "min_ns"},  {"p50", "p50_ns"},   {"p90", "p90_ns"},
    {"p99", "p99_ns"},  {"p999", "p999_ns"}, {"max", "max_ns"},
    {"mean", "mean_ns"}};

void Reader::Distribution(const json& owner, const std::string& where,
                          Point& p) const {
  const std::string at = where + "/stats";
  const json& stats = Member(owner, "stats", where);
  for (const auto& [name, key] : kStatsQuantiles) {
    if (stats.is_object() && stats.contains(key)) {
      p.stats[name] = Number(stats[key], at + "/" + key);
    }
  }
  p.bins = Bins(Member(stats, "histogram", at), at + "/histogram");
  double total = 0;
  for (const Bin& b : p.bins) total += b.count;
  // Files before "count" said "samples".
  if (stats.contains("count")) {
    p.count = Whole(stats["count"], at + "/count");
  } else if (stats.contains("samples")) {
    p.count = Whole(stats["samples"], at + "/samples");
  } else {
    p.count = static_cast<uint64_t>(std::llround(total));
  }
  if (p.count == 0) Fail(at, "no samples");
  p.observations = stats.contains("observations")
                       ? Whole(stats["observations"], at + "/observations")
                       : p.count;
  if (owner.contains("raw_ns")) {
    const json& raw = owner["raw_ns"];
    if (!raw.is_array()) Fail(where + "/raw_ns", "not an array");
    p.raw.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      const json& v = raw[i];
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        Fail(where + "/raw_ns/" + std::to_string(i), "not a finite number");
      }
      // A sample is a duration; the shared log bins have no place for a
      // negative one (found by compare_fuzz).
      if (v.get<double>() < 0) {
        Fail(where + "/raw_ns/" + std::to_string(i), "a negative duration");
      }
      p.raw.push_back(v.get<double>());
    }
  }
}

void ReadResults(const Reader& in, const json& doc, Run& run) {
  const json& results = in.Member(doc, "results", "");
  if (!results.is_array()) in.Fail("results", "not an array");
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string where = "results/" + std::to_string(i);
    const json& r = results[i];
    Point p;
    p.identity.mode = run.mode;
    p.identity.op = in.Text(in.Member(r, "op", where), where + "/op");
    p.identity.size = in.Whole(in.Member(r, "size", where), where + "/size");
    p.identity.is_inline = in.Flag(r, "inline", where);
    if (run.mode == "bw") {
      p.identity.bidirectional = in.Flag(r, "bidirectional", where);
    }
    in.Distribution(r, where, p);
    run.points.push_back(std::move(p));
  }
}

void ReadLop(const Reader& in, const json& doc, Run& run) {
  const json& curves =
      in.Member(in.Member(doc, lop::kSection, ""), lop::kCurves, "lop");
  if (!curves.is_array()) in.Fail("lop/curves", "not an array");
  for (size_t c = 0; c < curves.size(); ++c) {
    const std::string where = "lop/curves/" + std::to_string(c);
    const std::string name =
        in.Text(in.Member(curves[c], lop::key::kName, where), where + "/name");
    const json& points = in.Member(curves[c], lop::key::kPoints, where);
    if (!points.is_array()) in.Fail(where + "/points", "not an array");
    for (size_t i = 0; i < points.size(); ++i) {
      const std::string at = where + "/points/" + std::to_string(i);
      // Derived curves (L, L_list) are arithmetic on statistics, not
      // distributions: they have no stats object.
      if (!points[i].is_object() || !points[i].contains(lop::key::kStats)) {
        continue;
      }
      Point p;
      p.identity.mode = run.mode;
      p.identity.curve = name;
      p.identity.p =
          in.Whole(in.Member(points[i], lop::key::kP, at), at + "/p");
      in.Distribution(points[i], at, p);
      run.points.push_back(std::move(p));
    }
  }
}

// One line from a parser's message: no control characters, not too long.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

}  // namespace

std::string Identity::Id() const {
  if (mode == "lop") return mode + " " + curve + " p=" + std::to_string(p);
  return mode + " " + op + (is_inline ? " inline" : "") + " size " +
         std::to_string(size) + (bidirectional ? " bidirectional" : "");
}

json Identity::ToJson() const {
  if (mode == "lop") return {{"mode", mode}, {"curve", curve}, {"p", p}};
  json j = {{"mode", mode}, {"op", op}, {"size", size}, {"inline", is_inline}};
  if (mode == "bw") j["bidirectional"] = bidirectional;
  return j;
}

Run ParseRun(const json& doc, const std::string& label) {
  const Reader in(label);
  Run run{label, "", {}};
  if (!doc.is_object()) in.Fail("", "not a verbsbench result (not an object)");
  const auto tool = doc.find("tool");
  if (tool != doc.end() && *tool != "verbsbench") {
    in.Fail("", "not a verbsbench result (tool " + OneLine(tool->dump()) + ")");
  }
  const auto mode = doc.find("mode");
  if (mode == doc.end() || !mode->is_string()) {
    in.Fail("", "not a verbsbench result (no 'mode')");
  }
  run.mode = mode->get<std::string>();
  if (doc.value("role", "") == "peer") {
    in.Fail("", "a peer's report, without results (compare the root's)");
  }
  if (run.mode == "lat" || run.mode == "bw") {
    ReadResults(in, doc, run);
  } else if (run.mode == "lop") {
    ReadLop(in, doc, run);
  } else {
    in.Fail("", "unknown mode '" + OneLine(run.mode) + "' (lat, bw or lop)");
  }
  if (run.points.empty()) in.Fail("", "no measured points");
  std::set<std::string> seen;
  for (Point& p : run.points) {
    p.id = p.identity.Id();
    if (!seen.insert(p.id).second) in.Fail("", "two points are '" + p.id + "'");
  }
  return run;
}

Run ReadRun(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": is a directory");
  }
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw InputError(path + ": cannot read (" + std::strerror(errno) + ")");
  std::stringstream text;
  text << f.rdbuf();
  if (f.bad()) throw InputError(path + ": read error");
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    std::string what = e.what();
    const size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InputError(path + ": not JSON (" + OneLine(what) + ")");
  }
  return ParseRun(doc, path);
}

}  // namespace verbsbench::compare
