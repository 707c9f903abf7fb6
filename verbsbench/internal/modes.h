// The modes, one row each in kModes: what the command line defaults for
// each, which peers it takes, its own refusals, the function that runs it,
// its section of the run's JSON and the writers of its table, CSV,
// distributions and raw samples. Everything that depends on the mode reads
// its row: Normalize and ToJson (verbsbench/mode.h), the engine, the report
// writers (verbsbench/report.h) and --help. A mode's functions live in its
// own file (lat.cc, bw.cc, lop_mode.cc, loggp_mode.cc; the writers of the
// tables in report_*.cc); they see the patterns only through Measurements,
// so tests drive them without a device.
#ifndef VERBSBENCH_INTERNAL_MODES_H_
#define VERBSBENCH_INTERNAL_MODES_H_

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "verbsbench/internal/measurements.h"
#include "verbsbench/options.h"
#include "verbsbench/result.h"

namespace verbsbench::internal {

// The writers of a run's JSON: a section of the report (table, CSV, raw
// samples), and the run's distributions by label (histograms, warnings). A
// run missing parts prints what it has (report_fields.h).
using RunWriter = void (*)(const nlohmann::json& run, std::ostream& out);
using StatsFn =
    std::function<void(const std::string& label, const nlohmann::json& stats)>;
using EachStats = void (*)(const nlohmann::json& run, const StatsFn& fn);

// lat (lat.cc) and bw (bw.cc); their writers are shared (report_results.cc).
std::vector<LatPoint> RunLat(Measurements& m, const Options& o,
                             std::ostream& progress);
void LatJson(const Result& r, nlohmann::json& run);

std::vector<BwPoint> RunBw(Measurements& m, const Options& o,
                           std::ostream& progress);
void BwJson(const Result& r, nlohmann::json& run);
void PrintLatTable(const nlohmann::json& run, std::ostream& out);
void PrintBwTable(const nlohmann::json& run, std::ostream& out);
void WriteLatCsv(const nlohmann::json& run, std::ostream& out);
void WriteBwCsv(const nlohmann::json& run, std::ostream& out);
void ResultsStats(const nlohmann::json& run, const StatsFn& fn);
void WriteResultsRaw(const nlohmann::json& run, std::ostream& out);

// lop (lop_mode.cc, report_lop.cc).

std::vector<LopCurve> RunLop(Measurements& m, const Options& o,
                             std::ostream& progress);
void CheckLop(const Options& o);
void LopJson(const Result& r, nlohmann::json& run);
void PrintLopTable(const nlohmann::json& run, std::ostream& out);
void WriteLopCsv(const nlohmann::json& run, std::ostream& out);
void LopStats(const nlohmann::json& run, const StatsFn& fn);
void WriteLopRaw(const nlohmann::json& run, std::ostream& out);

// loggp (loggp_mode.cc, report_loggp.cc).

// Per size: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) with d = --loggp-delay or
// the larger of the median PRTT(1,0,s) and twice the gap, then o_r settling
// for the median PRTT(n,0,s).
std::vector<LoggpPoint> RunLoggp(Measurements& m, const Options& o,
                                 std::ostream& progress);
void CheckLoggp(const Options& o);
void LoggpJson(const Result& r, nlohmann::json& run);
// Netgauge's columns and the values derived per size.
void PrintLoggpTable(const nlohmann::json& run, std::ostream& out);
void WriteLoggpCsv(const nlohmann::json& run, std::ostream& out);
// Each measured entry (prtt_1_0, prtt_n_0, prtt_n_d, o_r) of each size,
// labelled "loggp s=SIZE ENTRY".
void LoggpStats(const nlohmann::json& run, const StatsFn& fn);
void WriteLoggpRaw(const nlohmann::json& run, std::ostream& out);

struct ModeRow {
  Mode mode;  // its word: EnumTable<Mode> (verbsbench/options.h)
  // Its lines of --help, or "".
  const char* help;
  // What the command line leaves out, as --op, --inline and --size spell
  // it.
  const char* ops;
  const char* inline_modes;
  const char* sizes;
  // One root and --peers P peers; otherwise one root and one peer.
  bool many_peers;
  // UD QPs beside the RC ones when it sends (lop's list-posted round).
  bool ud;
  // Its refusals of the normalized options, or nullptr.
  void (*check)(const Options&);
  // Measures its points into the result.
  void (*run)(Measurements&, const Options&, std::ostream& progress, Result&);
  // Adds its results to the run's JSON.
  void (*to_json)(const Result&, nlohmann::json& run);
  // The writers of its part of the run's JSON.
  RunWriter print_table;
  RunWriter write_csv;
  EachStats for_each_stats;
  RunWriter write_raw;
};

// clang-format off
inline constexpr std::array<ModeRow, 4> kModes = {{
    {.mode = Mode::kLat,
     .help = "",
     .ops = "send", .inline_modes = "off", .sizes = "2",
     .many_peers = false, .ud = false, .check = nullptr,
     .run = [](Measurements& m, const Options& o, std::ostream& p,
               Result& r) { r.lat = RunLat(m, o, p); },
     .to_json = LatJson,
     .print_table = PrintLatTable, .write_csv = WriteLatCsv,
     .for_each_stats = ResultsStats, .write_raw = WriteResultsRaw},
    {.mode = Mode::kBw,
     .help = "",
     .ops = "send", .inline_modes = "off", .sizes = "64K",
     .many_peers = false, .ud = false, .check = nullptr,
     .run = [](Measurements& m, const Options& o, std::ostream& p,
               Result& r) { r.bw = RunBw(m, o, p); },
     .to_json = BwJson,
     .print_table = PrintBwTable, .write_csv = WriteBwCsv,
     .for_each_stats = ResultsStats, .write_raw = WriteResultsRaw},
    {.mode = Mode::kLop,
     .help = "  lop: start the root with --peers P, then P peers with the "
             "root's HOST.\n",
     .ops = "send,write", .inline_modes = "both", .sizes = "8",
     .many_peers = true, .ud = true, .check = CheckLop,
     .run = [](Measurements& m, const Options& o, std::ostream& p,
               Result& r) { r.lop = RunLop(m, o, p); },
     .to_json = LopJson,
     .print_table = PrintLopTable, .write_csv = WriteLopCsv,
     .for_each_stats = LopStats, .write_raw = WriteLopRaw},
    {.mode = Mode::kLoggp,
     .help = "",
     .ops = "send", .inline_modes = "on", .sizes = "1:64K",
     .many_peers = false, .ud = false, .check = CheckLoggp,
     .run = [](Measurements& m, const Options& o, std::ostream& p,
               Result& r) { r.loggp = RunLoggp(m, o, p); },
     .to_json = LoggpJson,
     .print_table = PrintLoggpTable, .write_csv = WriteLoggpCsv,
     .for_each_stats = LoggpStats, .write_raw = WriteLoggpRaw},
}};
// clang-format on

// The row of `mode`, or nullptr.
constexpr const ModeRow* FindRow(Mode mode) {
  for (const ModeRow& row : kModes) {
    if (row.mode == mode) return &row;
  }
  return nullptr;
}
// The row of the mode a run's JSON names, or nullptr.
inline const ModeRow* FindRow(const std::string& name) {
  const std::optional<Mode> mode = Parse<Mode>(name);
  return mode ? FindRow(*mode) : nullptr;
}
// Every word of EnumTable<Mode> has one row, and every row a word (by
// value: gcc's UBSan makes a pointer comparison non-constant).
static_assert([] {
  for (const auto& [mode, name] : verbsemu::base::EnumTable<Mode>::kRows) {
    bool found = false;
    for (const ModeRow& row : kModes) found = found || row.mode == mode;
    if (!found) return false;
  }
  return kModes.size() == verbsemu::base::EnumTable<Mode>::kRows.size();
}());

// The row of `mode` (a value outside the enum throws std::logic_error).
inline const ModeRow& RowOf(Mode mode) {
  const ModeRow* row = FindRow(mode);
  if (row == nullptr)
    throw std::logic_error("verbsbench: a mode without a row");
  return *row;
}

// Iterations per point: --iters, or with --duration the count a short pilot
// run (given the iterations to run) says fills the duration.
uint64_t IterationsFor(const Options& o,
                       const std::function<Recorder(uint64_t)>& pilot);

// RDMA read has no inline variant: with both inline modes, run it once.
bool SkipInline(Op op, bool inl, const Options& o);

// Calls `point` for every message lat and bw measure: each op, inline mode
// (but SkipInline) and size, in that order.
void ForEachMessage(const Options& o,
                    const std::function<void(const Message&)>& point);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_MODES_H_
