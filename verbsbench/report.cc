#include "verbsbench/report.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>

#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/report_fields.h"

namespace verbsbench {
namespace {

using internal::Field;
using internal::Fmt;
using internal::Whole;
using nlohmann::json;

// The row of the run's mode, or nullptr for a run of no known mode (whose
// writers print only what every run has).
const internal::ModeRow* RowOfRun(const json& run) {
  return internal::FindRow(run.value("mode", ""));
}

// Calls fn(label, stats) for every measured distribution of the run, in
// output order.
void ForEachStats(const json& run, const internal::StatsFn& fn) {
  if (const internal::ModeRow* row = RowOfRun(run))
    row->for_each_stats(run, fn);
}

void PrintHeader(const json& run, const std::string& mode, std::ostream& out) {
  const json& timer = Field(run, "timer");
  out << "# verbsbench " << mode << "  device "
      << Field(run, "device").value("name", "?") << " ("
      << Field(run, "device").value("connection", "?") << ", max_inline "
      << Whole(Field(run, "device"), "max_inline", 0) << ", wr_api "
      << (Field(run, "device").value("wr_api", false) ? "yes" : "no") << ")\n";
  out << "# timer " << timer.value("source", "?") << " "
      << Fmt("%.3f", timer.value("tsc_hz", 0.0) / 1e9) << " GHz, overhead min "
      << Fmt("%.1f", timer.value("overhead_min_ns", 0.0))
      << " ns (subtracted), p99 "
      << Fmt("%.1f", Field(timer, "overhead").value("p99_ns", 0.0)) << " ns";
  if (timer.contains("overhead_after_run")) {
    out << "; after run min "
        << Fmt("%.1f", Field(timer, "overhead_after_run").value("min_ns", 0.0))
        << " ns";
  }
  if (!timer.value("invariant_tsc", true)) out << "; TSC not invariant";
  out << "\n";
}

}  // namespace

void PrintTable(const json& run, std::ostream& out) {
  PrintHeader(run, run.value("mode", ""), out);
  if (const internal::ModeRow* row = RowOfRun(run)) row->print_table(run, out);
}

void WriteCsv(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  if (const internal::ModeRow* row = RowOfRun(run)) row->write_csv(run, out);
}

void WriteHistograms(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  // gnuplot: one block per distribution, separated by two blank lines
  // (select with `index N`).
  auto block = [&](const std::string& label, const json& stats) {
    out << "# " << label << "\n# lo_ns hi_ns count pdf_per_ns cdf\n";
    for (const json& b : Field(stats, "histogram")) {
      out << Field(b, "lo_ns").get<double>() << " "
          << Field(b, "hi_ns").get<double>() << " "
          << Whole(b, "count", uint64_t{0}) << " "
          << Field(b, "pdf").get<double>() << " "
          << Field(b, "cdf").get<double>() << "\n";
    }
    out << "\n\n";
  };
  block("timer overhead", Field(Field(run, "timer"), "overhead"));
  ForEachStats(run, block);
  // The cycle minimums after every distribution, so the blocks above keep
  // their indices.
  ForEachStats(run, [&](const std::string& label, const json& stats) {
    if (stats.contains("cycle_min")) {
      block(label + " cycle minimums", Field(stats, "cycle_min"));
    }
  });
}

void WriteRaw(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  out << "# label sample_ns\n";
  if (const internal::ModeRow* row = RowOfRun(run)) row->write_raw(run, out);
}

void PrintWarnings(const json& run, std::ostream& err) {
  uint64_t migrated = 0, samples = 0;
  int distributions = 0;
  ForEachStats(run, [&](const std::string&, const json& stats) {
    const uint64_t m = Whole(stats, "migrated_samples", uint64_t{0});
    if (m == 0) return;
    migrated += m;
    samples += Whole(stats, "count", uint64_t{0});
    ++distributions;
  });
  if (migrated == 0) return;
  err << "verbsbench: warning: " << migrated << " samples in " << distributions
      << " distribution(s) (of " << samples
      << ") migrated between CPUs; pin the processes (taskset -c)\n";
}

void WriteJson(const json& run, std::ostream& out) {
  out << run.dump(1) << "\n";
}

void WriteFile(const std::string& path, const json& run,
               void (*writer)(const json&, std::ostream&)) {
  if (path == "-") {
    writer(run, std::cout);
    return;
  }
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
  writer(run, f);
  f.close();
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace verbsbench
