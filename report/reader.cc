#include "report/reader.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "base/json_number.h"
#include "report/schema.h"

namespace verbsemu::report {
namespace {

using nlohmann::json;

// The string at `key`; false (with `why`) when absent or not a string.
bool GetString(const json& o, const char* key, std::string* out,
               std::string* why) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_string()) {
    *why = std::string("field \"") + key + "\" missing or not a string";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

bool GetBool(const json& o, const char* key, bool* out, std::string* why) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_boolean()) {
    *why = std::string("field \"") + key + "\" missing or not true/false";
    return false;
  }
  *out = it->get<bool>();
  return true;
}

bool ReadWarnings(const json& doc, std::vector<Warning>* out,
                  std::string* why) {
  const auto it = doc.find("warnings");
  if (it == doc.end() || !it->is_array()) {
    *why = "field \"warnings\" missing or not a list";
    return false;
  }
  for (const json& w : *it) {
    Warning x;
    if (!w.is_object()) {
      *why = "a warning that is not an object";
      return false;
    }
    if (!GetString(w, "code", &x.code, why) ||
        !GetString(w, "severity", &x.severity, why) ||
        !GetBool(w, "invalidates", &x.invalidates, why) ||
        !GetString(w, "text", &x.text, why)) {
      *why = "warning: " + *why;
      return false;
    }
    out->push_back(std::move(x));
  }
  return true;
}

// The optional "waits" object: absent is none; present, every field a
// number of at least 0.
bool ReadWaits(const json& doc, std::optional<Waits>* out, std::string* why) {
  const auto it = doc.find("waits");
  if (it == doc.end()) return true;
  Waits w;
  const std::pair<const char*, double*> fields[] = {
      {"count", &w.count},
      {"waited_ns", &w.waited_ns},
      {"lost_cpu", &w.lost_cpu},
      {"lost_cpu_late_ns", &w.lost_cpu_late_ns}};
  for (const auto& [key, value] : fields) {
    const auto f = it->is_object() ? it->find(key) : it->end();
    if (f == it->end() || !f->is_number() || f->get<double>() < 0) {
      *why = std::string("waits: field \"") + key +
             "\" missing or not a number of at least 0";
      return false;
    }
    *value = f->get<double>();
  }
  *out = w;
  return true;
}

// The schema check: a foreign document and another version read apart.
bool CheckSchema(const json& doc, std::string* why) {
  const auto it = doc.find("schema");
  if (!doc.is_object() || it == doc.end() || !it->is_string()) {
    *why = "not a verbsemu report (no \"schema\")";
    return false;
  }
  const std::string schema = it->get<std::string>();
  if (schema == kSchema) return true;
  if (schema.starts_with(kSchemaFamily)) {
    *why = "report schema " + schema + ", this verbsemu reads " +
           std::string(kSchema) + ": run the sweep with the same build";
  } else {
    *why = "not a verbsemu report (schema \"" + schema.substr(0, 64) + "\")";
  }
  return false;
}

}  // namespace

std::optional<ShimReport> ParseReport(std::string_view text, std::string* why) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *why = text.empty() ? "empty report (the process ended while writing it?)"
                        : "not a complete JSON document (cut short?)";
    return std::nullopt;
  }
  if (!CheckSchema(doc, why)) return std::nullopt;
  ShimReport r;
  const auto pid = doc.find("pid");
  const std::optional<long> n =
      pid == doc.end() ? std::nullopt : base::WholeNumber<long>(*pid);
  if (!n || *n <= 0) {
    *why = "field \"pid\" missing or not a positive integer";
    return std::nullopt;
  }
  r.pid = *n;
  if (!GetString(doc, "command", &r.command, why) ||
      !GetBool(doc, "emulated", &r.emulated, why) ||
      !GetString(doc, "config_error", &r.config_error, why) ||
      !ReadWarnings(doc, &r.warnings, why) || !ReadWaits(doc, &r.waits, why)) {
    return std::nullopt;
  }
  return r;
}

std::string NotEmulated(const ShimReport& r) {
  if (!r.emulated) {
    return "not emulating: configuration error" +
           (r.config_error.empty() ? std::string() : ": " + r.config_error);
  }
  for (const Warning& w : r.warnings) {
    if (w.invalidates) return w.code + ": " + w.text;
  }
  return "";
}

}  // namespace verbsemu::report
