// lat's and bw's writers: their results are a list of points, each with its
// stats; bw's carry its rates too.
#include <cstdio>

#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/report_fields.h"

namespace verbsbench::internal {
namespace {

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

// The CSV of a run's results; with `rates`, bw's columns.
void WriteResultsCsv(const json& run, bool rates, std::ostream& out) {
  const std::string mode = run.value("mode", "");
  out << "mode,op,inline,size,iterations,metric,";
  if (rates) out << "bw_MiBps,msg_rate_Mpps,bidirectional,";
  out << kStatsCsvHeader << kCycleCsvHeader << "\n";
  for (const json& r : Field(run, "results")) {
    out << mode << "," << r.value("op", std::string()) << ","
        << r.value("inline", false) << "," << Whole(r, "size", 0) << ","
        << Whole(r, "iterations", 0ull) << ","
        << r.value("metric", std::string()) << ",";
    if (rates) {
      out << r.value("bw_MiBps", 0.0) << "," << r.value("msg_rate_Mpps", 0.0)
          << "," << r.value("bidirectional", false) << ",";
    }
    WriteStatsCsv(Field(r, "stats"), out);
    WriteCycleCsv(Field(r, "stats"), out);
    out << "\n";
  }
}

}  // namespace

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

void WriteLatCsv(const json& run, std::ostream& out) {
  WriteResultsCsv(run, false, out);
}

void WriteBwCsv(const json& run, std::ostream& out) {
  WriteResultsCsv(run, true, out);
}

// "lat send inline size 8": the mode, then the point.
void ResultsStats(const json& run, const StatsFn& fn) {
  const std::string mode = run.value("mode", "");
  for (const json& r : Field(run, "results"))
    fn(mode + " " + Label(r), Field(r, "stats"));
}

void WriteResultsRaw(const json& run, std::ostream& out) {
  for (const json& r : Field(run, "results")) {
    const std::string label = r.value("op", std::string()) + "/" +
                              std::to_string(Whole(r, "size", 0)) +
                              (r.value("inline", false) ? "/inline" : "");
    if (r.contains("raw_ns")) {
      for (const json& v : Field(r, "raw_ns"))
        out << label << " " << v.get<double>() << "\n";
    }
  }
}

}  // namespace verbsbench::internal
