#include "sweep/runs_csv.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace verbsemu::sweep {
namespace {

constexpr const char* kColumns[] = {
    "run",        "block",     "point",           "program", "latency",
    "latency_ns", "bandwidth", "bandwidth_share", "bw_mode", "metric",
    "wall_s",     "status",    "valid",           "reports", "reason",
    "waits",      "wait_ns",   "wait_own_ns"};
// Then two per kDurationAxes row: NAME (as given) and NAME_ns.
constexpr size_t kFixedColumns = std::size(kColumns);
constexpr size_t kNumColumns = kFixedColumns + 2 * kDurationAxisCount;

std::string Quote(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// RFC 4180 fields of the line starting at `*pos`; advances past its end.
std::vector<std::string> SplitRow(const std::string& text, size_t* pos) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  size_t i = *pos;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  *pos = i + 1;
  return fields;
}

bool ToDouble(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(*v);
}

bool ToInt(const std::string& s, int* v) {
  char* end = nullptr;
  const long l = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || l < 0 || l > 1'000'000'000) return false;
  *v = static_cast<int>(l);
  return true;
}

bool FromFields(const std::vector<std::string>& f, RunRecord* r) {
  double metric = 0;
  r->program = f[3];
  r->latency = f[4];
  r->bandwidth = f[6];
  r->bw_mode = f[8];
  r->status = f[11];
  r->reason = f[14];
  if (!f[9].empty()) {
    if (!ToDouble(f[9], &metric)) return false;
    r->metric = metric;
  }
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    r->durations[i] = f[kFixedColumns + 2 * i];
    if (!ToDouble(f[kFixedColumns + 2 * i + 1], &r->durations_ns[i])) {
      return false;
    }
  }
  return ToDouble(f[15], &r->waits) && ToDouble(f[16], &r->wait_ns) &&
         ToDouble(f[17], &r->wait_own_ns) && ToInt(f[0], &r->run) &&
         ToInt(f[1], &r->block) && ToInt(f[2], &r->point) &&
         ToDouble(f[5], &r->latency_ns) &&
         ToDouble(f[7], &r->bandwidth_share) && ToDouble(f[10], &r->wall_s) &&
         (f[12] == "1" || f[12] == "0") && ToInt(f[13], &r->reports) &&
         (r->valid = f[12] == "1", true);
}

}  // namespace

std::string RunsCsvHeader() {
  std::string h;
  for (const char* c : kColumns) h += (h.empty() ? "" : ",") + std::string(c);
  for (const DurationAxis& a : kDurationAxes) {
    h += "," + std::string(a.name) + "," + std::string(a.name) + "_ns";
  }
  return h;
}

std::string RunsCsvRow(const RunRecord& r) {
  const std::string fields[] = {
      std::to_string(r.run),   std::to_string(r.block),
      std::to_string(r.point), Quote(r.program),
      Quote(r.latency),        Num(r.latency_ns),
      Quote(r.bandwidth),      Num(r.bandwidth_share),
      Quote(r.bw_mode),        r.metric ? Num(*r.metric) : "",
      Num(r.wall_s),           Quote(r.status),
      r.valid ? "1" : "0",     std::to_string(r.reports),
      Quote(r.reason),         Num(r.waits),
      Num(r.wait_ns),          Num(r.wait_own_ns)};
  std::string row;
  for (size_t i = 0; i < kFixedColumns; ++i) {
    row += (i ? "," : "") + fields[i];
  }
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    row += "," + Quote(r.durations[i]) + "," + Num(r.durations_ns[i]);
  }
  return row;
}

std::optional<std::vector<RunRecord>> ReadRunsCsv(const std::string& text,
                                                  std::string* why) {
  size_t pos = 0;
  const size_t header_end = std::min(text.find('\n'), text.size());
  if (text.substr(0, header_end) != RunsCsvHeader()) {
    *why = "runs.csv does not start with the header this version writes";
    return std::nullopt;
  }
  pos = header_end + 1;
  // A row cut short by a kill has no newline yet: that run did not finish.
  const std::string whole = text.substr(0, text.rfind('\n') + 1);
  std::vector<RunRecord> runs;
  for (int line = 2; pos < whole.size(); ++line) {
    const std::vector<std::string> f = SplitRow(whole, &pos);
    if (f.size() == 1 && f[0].empty()) continue;  // a blank line
    RunRecord r;
    if (f.size() != kNumColumns || !FromFields(f, &r)) {
      *why = "runs.csv line " + std::to_string(line) + " is malformed";
      return std::nullopt;
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace verbsemu::sweep
