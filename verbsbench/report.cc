#include "verbsbench/report.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>

#include "verbsbench/lop/contract.h"

namespace verbsbench {
namespace {

using nlohmann::json;

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Us(const json& stats, const char* key) {
  return Fmt("%.2f", stats.value(key, 0.0) / 1000.0);
}

std::string Label(const json& r) {
  std::string s = r.value("op", std::string("?"));
  if (r.value("inline", false)) s += " inline";
  s += " size " + std::to_string(r.value("size", 0));
  return s;
}

void PrintModes(const json& stats, std::ostream& out) {
  const json& modes = stats["modes"];
  if (modes.size() <= 1) return;
  out << "   multimodal: " << modes.size() << " modes at";
  for (const json& m : modes) {
    out << " " << Fmt("%.2f", m["value_ns"].get<double>() / 1000.0) << "us ("
        << Fmt("%.0f", 100 * m["fraction"].get<double>()) << "%)";
  }
  out << "\n";
}

void PrintHeader(const json& run, const std::string& mode, std::ostream& out) {
  const json& timer = run["timer"];
  out << "# verbsbench " << mode << "  device "
      << run["device"].value("name", "?") << " ("
      << run["device"].value("connection", "?") << ", max_inline "
      << run["device"].value("max_inline", 0) << ", wr_api "
      << (run["device"].value("wr_api", false) ? "yes" : "no") << ")\n";
  out << "# timer " << timer.value("source", "?") << " "
      << Fmt("%.3f", timer.value("tsc_hz", 0.0) / 1e9) << " GHz, overhead min "
      << Fmt("%.1f", timer.value("overhead_min_ns", 0.0))
      << " ns (subtracted), p99 "
      << Fmt("%.1f", timer["overhead"].value("p99_ns", 0.0)) << " ns";
  if (timer.contains("overhead_after_run")) {
    out << "; after run min "
        << Fmt("%.1f", timer["overhead_after_run"].value("min_ns", 0.0))
        << " ns";
  }
  if (!timer.value("invariant_tsc", true)) out << "; TSC not invariant";
  out << "\n";
}

void PrintLatTable(const json& run, std::ostream& out) {
  std::string last_group;
  for (const json& r : run["results"]) {
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
    const json& s = r["stats"];
    char line[256];
    std::snprintf(
        line, sizeof(line),
        " %-6zu %-11llu  %-11s  %-11s  %-15s  %-11s  %-13s  %-9s  %s\n",
        r.value("size", size_t{0}),
        static_cast<unsigned long long>(r.value("iterations", 0ull)),
        Us(s, "min_ns").c_str(), Us(s, "max_ns").c_str(),
        Us(s, "p50_ns").c_str(), Us(s, "mean_ns").c_str(),
        Fmt("%.3f", s.value("stdev_ns", 0.0) / 1000).c_str(),
        Us(s, "p99_ns").c_str(), Us(s, "p999_ns").c_str());
    out << line;
    PrintModes(s, out);
  }
}

void PrintBwTable(const json& run, std::ostream& out) {
  out << " #bytes  #iterations  BW average[MiB/sec]  BW average[Gb/sec]  "
         "MsgRate[Mpps]  op\n";
  for (const json& r : run["results"]) {
    char line[256];
    std::snprintf(
        line, sizeof(line), " %-7zu %-12llu %-20.2f %-19.3f %-14.6f %s%s%s\n",
        r.value("size", size_t{0}),
        static_cast<unsigned long long>(r.value("iterations", 0ull)),
        r.value("bw_MiBps", 0.0), r.value("bw_Gbps", 0.0),
        r.value("msg_rate_Mpps", 0.0), r.value("op", std::string("?")).c_str(),
        r.value("inline", false) ? " inline" : "",
        r.value("bidirectional", false) ? " bidirectional" : "");
    out << line;
  }
}

void PrintLopTable(const json& run, std::ostream& out) {
  for (const json& c : run[lop::kSection][lop::kCurves]) {
    out << "# " << c.value(lop::key::kName, std::string("?")) << "  ("
        << c.value(lop::key::kKind, std::string("")) << ")\n";
    out << "  p   min[usec]  median[usec]  mean[usec]  99%[usec]  samples\n";
    for (const json& pt : c[lop::key::kPoints]) {
      char line[160];
      std::snprintf(
          line, sizeof(line), "  %-3d %-10.3f %-13.3f %-11.3f %-10.3f %llu\n",
          pt.value(lop::key::kP, 0), pt.value(lop::key::kMinNs, 0.0) / 1000,
          pt.value(lop::key::kMedianNs, 0.0) / 1000,
          pt.value(lop::key::kMeanNs, 0.0) / 1000,
          pt.value(lop::key::kP99Ns, 0.0) / 1000,
          static_cast<unsigned long long>(pt.value(lop::key::kSamples, 0ull)));
      out << line;
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
  }
}

void WriteCsv(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  const std::string mode = run.value("mode", "");
  auto stat_cols = [&](const json& s) {
    out << s.value("count", 0ull) << "," << s.value("min_ns", 0.0) << ","
        << s.value("p50_ns", 0.0) << "," << s.value("p90_ns", 0.0) << ","
        << s.value("p99_ns", 0.0) << "," << s.value("p999_ns", 0.0) << ","
        << s.value("max_ns", 0.0) << "," << s.value("mean_ns", 0.0) << ","
        << s.value("stdev_ns", 0.0) << "," << s.value("skew", 0.0) << ","
        << s.value("kurtosis", 0.0) << "," << s["modes"].size();
  };
  const char* stat_header =
      "count,min_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mean_ns,stdev_ns,skew,"
      "kurtosis,modes";
  if (mode == "lat" || mode == "bw") {
    out << "mode,op,inline,size,iterations,metric,";
    if (mode == "bw") out << "bw_MiBps,msg_rate_Mpps,bidirectional,";
    out << stat_header << "\n";
    for (const json& r : run["results"]) {
      out << mode << "," << r.value("op", std::string()) << ","
          << r.value("inline", false) << "," << r.value("size", 0) << ","
          << r.value("iterations", 0ull) << ","
          << r.value("metric", std::string()) << ",";
      if (mode == "bw") {
        out << r.value("bw_MiBps", 0.0) << "," << r.value("msg_rate_Mpps", 0.0)
            << "," << r.value("bidirectional", false) << ",";
      }
      stat_cols(r["stats"]);
      out << "\n";
    }
  } else if (mode == "lop") {
    out << "curve,kind,pattern,side,op,inline,list,p,min_ns,median_ns,mean_ns,"
           "p99_ns,samples\n";
    for (const json& c : run[lop::kSection][lop::kCurves]) {
      for (const json& pt : c[lop::key::kPoints]) {
        out << c.value(lop::key::kName, std::string()) << ","
            << c.value(lop::key::kKind, std::string()) << ","
            << c.value(lop::key::kPattern, std::string()) << ","
            << c.value(lop::key::kSide, std::string()) << ","
            << c.value(lop::key::kOp, std::string()) << ","
            << c.value(lop::key::kInline, false) << ","
            << c.value(lop::key::kList, false) << ","
            << pt.value(lop::key::kP, 0) << ","
            << pt.value(lop::key::kMinNs, 0.0) << ","
            << pt.value(lop::key::kMedianNs, 0.0) << ","
            << pt.value(lop::key::kMeanNs, 0.0) << ","
            << pt.value(lop::key::kP99Ns, 0.0) << ","
            << pt.value(lop::key::kSamples, 0ull) << "\n";
      }
    }
  }
}

void WriteHistograms(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  // gnuplot: one block per distribution, separated by two blank lines
  // (select with `index N`).
  auto block = [&](const std::string& label, const json& stats) {
    out << "# " << label << "\n# lo_ns hi_ns count pdf_per_ns cdf\n";
    for (const json& b : stats["histogram"]) {
      out << b["lo_ns"].get<double>() << " " << b["hi_ns"].get<double>() << " "
          << b["count"].get<uint64_t>() << " " << b["pdf"].get<double>() << " "
          << b["cdf"].get<double>() << "\n";
    }
    out << "\n\n";
  };
  block("timer overhead", run["timer"]["overhead"]);
  const std::string mode = run.value("mode", "");
  if (mode == "lat" || mode == "bw") {
    for (const json& r : run["results"])
      block(mode + " " + Label(r), r["stats"]);
  } else if (mode == "lop") {
    for (const json& c : run[lop::kSection][lop::kCurves]) {
      for (const json& pt : c[lop::key::kPoints]) {
        if (pt.contains(lop::key::kStats)) {
          block(c.value(lop::key::kName, std::string()) +
                    " p=" + std::to_string(pt.value(lop::key::kP, 0)),
                pt[lop::key::kStats]);
        }
      }
    }
  }
}

void WriteRaw(const json& run, std::ostream& out) {
  out << std::setprecision(12);
  out << "# label sample_ns\n";
  const std::string mode = run.value("mode", "");
  if (mode == "lat" || mode == "bw") {
    for (const json& r : run["results"]) {
      const std::string label = r.value("op", std::string()) + "/" +
                                std::to_string(r.value("size", 0)) +
                                (r.value("inline", false) ? "/inline" : "");
      if (r.contains("raw_ns")) {
        for (const json& v : r["raw_ns"])
          out << label << " " << v.get<double>() << "\n";
      }
    }
  } else if (mode == "lop") {
    for (const json& c : run[lop::kSection][lop::kCurves]) {
      for (const json& pt : c[lop::key::kPoints]) {
        if (!pt.contains(lop::key::kRawNs)) continue;
        const std::string label = c.value(lop::key::kName, std::string()) +
                                  "/p" +
                                  std::to_string(pt.value(lop::key::kP, 0));
        for (const json& v : pt[lop::key::kRawNs])
          out << label << " " << v.get<double>() << "\n";
      }
    }
  }
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
