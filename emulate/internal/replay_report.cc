#include "emulate/internal/replay_report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>
#include <vector>

#include "base/read_file.h"
#include "emulate/units.h"

namespace verbsemu::emulate::internal {
namespace {

using nlohmann::json;

std::optional<double> NumberField(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The first result measuring the one-way latency (rtt/2), or null.
const json* FirstOneWayResult(const json& report) {
  const auto results = report.find("results");
  if (results == report.end() || !results->is_array()) return nullptr;
  for (const json& result : *results) {
    const auto metric = result.find("metric");
    if (metric != result.end() && *metric == "rtt/2") return &result;
  }
  return nullptr;
}

// The result's histogram bins, or null when there are none.
const json* HistogramOf(const json& result) {
  const auto stats = result.find("stats");
  if (stats == result.end()) return nullptr;
  const auto histogram = stats->find("histogram");
  if (histogram == stats->end() || !histogram->is_array() ||
      histogram->empty()) {
    return nullptr;
  }
  return &*histogram;
}

// "one-way, send 8 B": what was measured, from fields verbsbench writes. The
// op is kept only when it is a plain word, so Describe's "(...)" stays
// unambiguous.
std::string ReplayNote(const json& result) {
  std::string note = "one-way";
  const auto op = result.find("op");
  if (op != result.end() && op->is_string()) {
    const auto& name = op->get_ref<const std::string&>();
    const bool plain = !name.empty() && name.size() <= 16 &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || c == '_';
                       });
    if (plain) note += ", " + name;
  }
  const auto size = result.find("size");
  if (size != result.end() && size->is_number_unsigned()) {
    note += " " + std::to_string(size->get<uint64_t>()) + " B";
  }
  return note;
}

std::optional<DelayDistribution> ReplayFromJson(const std::string& path,
                                                const std::string& text,
                                                std::string* why) {
  const json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) {
    Say(why, path + " is not JSON" + std::string(kReplayHow));
    return std::nullopt;
  }
  const json* result = FirstOneWayResult(report);
  if (result == nullptr) {
    Say(why, path + " has no one-way (\"metric\": \"rtt/2\") result" +
                 std::string(kReplayHow) + " of a send or write test");
    return std::nullopt;
  }
  const json* histogram = HistogramOf(*result);
  if (histogram == nullptr) {
    Say(why, path + ": its rtt/2 result has no stats.histogram bins" +
                 std::string(kReplayHow));
    return std::nullopt;
  }
  std::vector<DelayDistribution::Bin> bins;
  for (const json& b : *histogram) {
    const auto lo = NumberField(b, "lo_ns"), hi = NumberField(b, "hi_ns"),
               count = NumberField(b, "count");
    if (!lo || !hi || !count) {
      Say(why, path + ": histogram bin " + std::to_string(bins.size() + 1) +
                   " lacks a number lo_ns, hi_ns or count" +
                   std::string(kReplayHow));
      return std::nullopt;
    }
    bins.push_back({*lo, *hi, *count});
  }
  std::string bins_why;
  auto replay = DelayDistribution::FromHistogram(
      std::move(bins), path, ReplayNote(*result), &bins_why);
  if (!replay) Say(why, path + ": " + bins_why + std::string(kReplayHow));
  return replay;
}

}  // namespace

void Say(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
}

// Bins with a count, checked, in order; "" or what is wrong.
std::string CheckBins(std::vector<DelayDistribution::Bin>* bins) {
  double total = 0;
  for (size_t i = 0; i < bins->size(); ++i) {
    const auto& b = (*bins)[i];
    const std::string name = "histogram bin " + std::to_string(i + 1);
    if (!std::isfinite(b.lo_ns) || !std::isfinite(b.hi_ns) ||
        !std::isfinite(b.count)) {
      return name + " holds a value that is not a finite number";
    }
    if (b.lo_ns < 0 || b.count < 0) return name + " holds a negative value";
    if (b.hi_ns <= b.lo_ns) return name + " has hi_ns <= lo_ns";
    if (b.hi_ns > kMaxDelayNs) return name + " reaches past one second";
    total += b.count;
  }
  if (!(total > 0) || !std::isfinite(total)) {
    return "the histogram holds no samples (or too many to add up)";
  }
  std::erase_if(*bins, [](const auto& b) { return b.count == 0; });
  std::sort(bins->begin(), bins->end(),
            [](const auto& x, const auto& y) { return x.lo_ns < y.lo_ns; });
  for (size_t i = 1; i < bins->size(); ++i) {
    if ((*bins)[i].lo_ns < (*bins)[i - 1].hi_ns) {
      return "histogram bins overlap at " + units::FormatNs((*bins)[i].lo_ns);
    }
  }
  return "";
}

std::optional<DelayDistribution> ReplayFromReport(const std::string& path,
                                                  const std::string& text,
                                                  std::string* why) {
  try {
    return ReplayFromJson(path, text, why);
  } catch (const json::exception& e) {
    Say(why, path + " is not a verbsbench report (" + e.what() + ")" +
                 std::string(kReplayHow));
  }
  return std::nullopt;
}

}  // namespace verbsemu::emulate::internal

namespace verbsemu::emulate {

std::optional<std::string> ReadWholeFile(const std::string& path,
                                         std::string* why) {
  // A verbsbench report with its histograms is some kilobytes; 64 MiB
  // leaves room for --raw samples without reading a runaway file.
  constexpr size_t kMaxReportBytes = size_t{64} << 20;
  std::string text, error;
  if (!base::ReadFileText(path, kMaxReportBytes, &text, &error)) {
    internal::Say(why, "cannot read " + path + ": " + error +
                           std::string(internal::kReplayHow));
    return std::nullopt;
  }
  return text;
}

}  // namespace verbsemu::emulate
