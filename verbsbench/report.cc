#include "verbsbench/report.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/lop/contract.h"
#include "verbsbench/internal/report_fields.h"
#include "verbsbench/internal/report_loggp.h"

namespace verbsbench {
namespace {

using internal::Field;
using internal::Fmt;
using internal::Whole;
using nlohmann::json;

std::string Us(const json& stats, const char* key) {
  return Fmt("%.2f", stats.value(key, 0.0) / 1000.0);
}

std::string Label(const json& r) {
  std::string s = r.value("op", std::string("?"));
  if (r.value("inline", false)) s += " inline";
  s += " size " + std::to_string(Whole(r, "size", 0));
  return s;
}

// Calls fn(label, stats) for every measured distribution of the run (lat
// and bw results, lop points), in output order.
template <class Fn>
void ForEachStats(const json& run, Fn fn) {
  const std::string mode = run.value("mode", "");
  if (mode == "lat" || mode == "bw") {
    for (const json& r : Field(run, "results"))
      fn(mode + " " + Label(r), Field(r, "stats"));
  } else if (mode == "lop") {
    for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
      for (const json& pt : Field(c, lop::key::kPoints)) {
        if (pt.contains(lop::key::kStats)) {
          fn(c.value(lop::key::kName, std::string()) +
                 " p=" + std::to_string(Whole(pt, lop::key::kP, 0)),
             Field(pt, lop::key::kStats));
        }
      }
    }
  } else if (mode == "loggp") {
    internal::ForEachLoggpEntry(
        run, [&](const std::string& label, const json& entry) {
          if (entry.contains(lop::key::kStats)) {
            fn(label, Field(entry, lop::key::kStats));
          }
        });
  }
}

// A distribution some of whose samples ran on two CPUs gets a line saying
// how many.
void PrintMigrated(const json& stats, std::ostream& out) {
  const uint64_t migrated = Whole(stats, "migrated_samples", uint64_t{0});
  if (migrated == 0) return;
  out << "   warning: " << migrated << " of "
      << Whole(stats, "count", uint64_t{0})
      << " samples migrated between CPUs (pin the processes: taskset -c)\n";
}

void PrintModes(const json& stats, std::ostream& out) {
  const json& modes = Field(stats, "modes");
  if (modes.size() <= 1) return;
  out << "   multimodal: " << modes.size() << " modes at";
  for (const json& m : modes) {
    out << " " << Fmt("%.2f", Field(m, "value_ns").get<double>() / 1000.0)
        << "us (" << Fmt("%.0f", 100 * Field(m, "fraction").get<double>())
        << "%)";
  }
  out << "\n";
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

void PrintLatTable(const json& run, std::ostream& out) {
  std::string last_group;
  for (const json& r : Field(run, "results")) {
    const std::string group = r.value("op", std::string("?")) +
                              (r.value("inline", false) ? " inline" : "") +
                              " (" + r.value("metric", std::string("")) + ")";
    if (group != last_group) {
      out << "# " << group << "\n";
      out << " #bytes #iterations  t_min[usec]  t_max[usec]  t_typical[usec] "
             " t_avg[usec]"
             "  t_stdev[usec]  99%[usec]  99.9%[usec]\n";
      last_group = group;
    }
    const json& s = Field(r, "stats");
    char line[256];
    std::snprintf(
        line, sizeof(line),
        " %-6zu %-11llu  %-11s  %-11s  %-15s  %-11s  %-13s  %-9s  %s\n",
        Whole(r, "size", size_t{0}),
        static_cast<unsigned long long>(Whole(r, "iterations", 0ull)),
        Us(s, "min_ns").c_str(), Us(s, "max_ns").c_str(),
        Us(s, "p50_ns").c_str(), Us(s, "mean_ns").c_str(),
        Fmt("%.3f", s.value("stdev_ns", 0.0) / 1000).c_str(),
        Us(s, "p99_ns").c_str(), Us(s, "p999_ns").c_str());
    out << line;
    PrintModes(s, out);
    PrintMigrated(s, out);
  }
}

void PrintBwTable(const json& run, std::ostream& out) {
  out << " #bytes  #iterations  BW average[MiB/sec]  BW average[Gb/sec]  "
         "MsgRate[Mpps]  op\n";
  for (const json& r : Field(run, "results")) {
    char line[256];
    std::snprintf(
        line, sizeof(line), " %-7zu %-12llu %-20.2f %-19.3f %-14.6f %s%s%s\n",
        Whole(r, "size", size_t{0}),
        static_cast<unsigned long long>(Whole(r, "iterations", 0ull)),
        r.value("bw_MiBps", 0.0), r.value("bw_Gbps", 0.0),
        r.value("msg_rate_Mpps", 0.0), r.value("op", std::string("?")).c_str(),
        r.value("inline", false) ? " inline" : "",
        r.value("bidirectional", false) ? " bidirectional" : "");
    out << line;
    PrintMigrated(Field(r, "stats"), out);
  }
}

void PrintLopTable(const json& run, std::ostream& out) {
  for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
    out << "# " << c.value(lop::key::kName, std::string("?")) << "  ("
        << c.value(lop::key::kKind, std::string("")) << ")\n";
    out << "  p   min[usec]  median[usec]  mean[usec]  99%[usec]  samples\n";
    for (const json& pt : Field(c, lop::key::kPoints)) {
      char line[160];
      std::snprintf(
          line, sizeof(line), "  %-3d %-10.3f %-13.3f %-11.3f %-10.3f %llu\n",
          Whole(pt, lop::key::kP, 0), pt.value(lop::key::kMinNs, 0.0) / 1000,
          pt.value(lop::key::kMedianNs, 0.0) / 1000,
          pt.value(lop::key::kMeanNs, 0.0) / 1000,
          pt.value(lop::key::kP99Ns, 0.0) / 1000,
          static_cast<unsigned long long>(Whole(pt, lop::key::kSamples, 0ull)));
      out << line;
      PrintMigrated(Field(pt, lop::key::kStats), out);
    }
  }
}

constexpr const char* kStatsCsvHeader =
    "count,min_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mean_ns,stdev_ns,skew,"
    "kurtosis,modes";

void WriteStatsCsv(const json& s, std::ostream& out) {
  out << Whole(s, "count", 0ull) << "," << s.value("min_ns", 0.0) << ","
      << s.value("p50_ns", 0.0) << "," << s.value("p90_ns", 0.0) << ","
      << s.value("p99_ns", 0.0) << "," << s.value("p999_ns", 0.0) << ","
      << s.value("max_ns", 0.0) << "," << s.value("mean_ns", 0.0) << ","
      << s.value("stdev_ns", 0.0) << "," << s.value("skew", 0.0) << ","
      << s.value("kurtosis", 0.0) << "," << Field(s, "modes").size();
}

// The cycle minimums' distribution and the migrated samples, last in every
// row so the earlier columns keep their places.
constexpr const char* kCycleCsvHeader =
    ",cycles,cycle_min_min_ns,cycle_min_p50_ns,cycle_min_p90_ns,"
    "cycle_min_max_ns,cycle_min_modes,migrated_samples";

void WriteCycleCsv(const json& s, std::ostream& out) {
  const json& c = Field(s, "cycle_min");
  out << "," << Whole(c, "count", 0ull) << "," << c.value("min_ns", 0.0) << ","
      << c.value("p50_ns", 0.0) << "," << c.value("p90_ns", 0.0) << ","
      << c.value("max_ns", 0.0) << "," << Field(c, "modes").size() << ","
      << Whole(s, "migrated_samples", 0ull);
}

void WriteResultsCsv(const json& run, const std::string& mode,
                     std::ostream& out) {
  out << "mode,op,inline,size,iterations,metric,";
  if (mode == "bw") out << "bw_MiBps,msg_rate_Mpps,bidirectional,";
  out << kStatsCsvHeader << kCycleCsvHeader << "\n";
  for (const json& r : Field(run, "results")) {
    out << mode << "," << r.value("op", std::string()) << ","
        << r.value("inline", false) << "," << Whole(r, "size", 0) << ","
        << Whole(r, "iterations", 0ull) << ","
        << r.value("metric", std::string()) << ",";
    if (mode == "bw") {
      out << r.value("bw_MiBps", 0.0) << "," << r.value("msg_rate_Mpps", 0.0)
          << "," << r.value("bidirectional", false) << ",";
    }
    WriteStatsCsv(Field(r, "stats"), out);
    WriteCycleCsv(Field(r, "stats"), out);
    out << "\n";
  }
}

void WriteLopCsv(const json& run, std::ostream& out) {
  out << "curve,kind,pattern,side,op,inline,list,p,min_ns,median_ns,mean_ns,"
         "p99_ns,samples"
      << kCycleCsvHeader << "\n";
  for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
    for (const json& pt : Field(c, lop::key::kPoints)) {
      out << c.value(lop::key::kName, std::string()) << ","
          << c.value(lop::key::kKind, std::string()) << ","
          << c.value(lop::key::kPattern, std::string()) << ","
          << c.value(lop::key::kSide, std::string()) << ","
          << c.value(lop::key::kOp, std::string()) << ","
          << c.value(lop::key::kInline, false) << ","
          << c.value(lop::key::kList, false) << ","
          << Whole(pt, lop::key::kP, 0) << ","
          << pt.value(lop::key::kMinNs, 0.0) << ","
          << pt.value(lop::key::kMedianNs, 0.0) << ","
          << pt.value(lop::key::kMeanNs, 0.0) << ","
          << pt.value(lop::key::kP99Ns, 0.0) << ","
          << Whole(pt, lop::key::kSamples, 0ull);
      WriteCycleCsv(Field(pt, lop::key::kStats), out);
      out << "\n";
    }
  }
}

}  // namespace

void PrintTable(const json& run, std::ostream& out) {
  const std::string mode = run.value("mode", "");
  PrintHeader(run, mode, out);
  if (mode == "lat") {
    PrintLatTable(run, out);
  } else if (mode == "bw") {
    PrintBwTable(run, out);
  } else if (mode == "lop") {
    PrintLopTable(run, out);
  } else if (mode == "loggp") {
    internal::PrintLoggpTable(run, out);
  }
}

void WriteCsv(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  const std::string mode = run.value("mode", "");
  if (mode == "lat" || mode == "bw") {
    WriteResultsCsv(run, mode, out);
  } else if (mode == "lop") {
    WriteLopCsv(run, out);
  } else if (mode == "loggp") {
    internal::WriteLoggpCsv(run, out);
  }
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
  const std::string mode = run.value("mode", "");
  if (mode == "lat" || mode == "bw") {
    for (const json& r : Field(run, "results")) {
      const std::string label = r.value("op", std::string()) + "/" +
                                std::to_string(Whole(r, "size", 0)) +
                                (r.value("inline", false) ? "/inline" : "");
      if (r.contains("raw_ns")) {
        for (const json& v : Field(r, "raw_ns"))
          out << label << " " << v.get<double>() << "\n";
      }
    }
  } else if (mode == "lop") {
    for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
      for (const json& pt : Field(c, lop::key::kPoints)) {
        if (!pt.contains(lop::key::kRawNs)) continue;
        const std::string label = c.value(lop::key::kName, std::string()) +
                                  "/p" +
                                  std::to_string(Whole(pt, lop::key::kP, 0));
        for (const json& v : Field(pt, lop::key::kRawNs))
          out << label << " " << v.get<double>() << "\n";
      }
    }
  } else if (mode == "loggp") {
    internal::ForEachLoggpEntry(
        run, [&](const std::string& label, const json& entry) {
          for (const json& v : Field(entry, lop::key::kRawNs))
            out << label << " " << v.get<double>() << "\n";
        });
  }
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
