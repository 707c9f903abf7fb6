// loggp's writers: its table (Netgauge's columns and the values derived per
// size), its CSV, and its measured entries for the writers every mode shares
// (histograms, raw samples, warnings).
#include "models/loggp/contract.h"
#include "models/loggp/derive.h"
#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/report_fields.h"

namespace verbsbench::internal {
namespace {

using nlohmann::json;
namespace key = loggp::key;
namespace stat = lop::key;

const json& Points(const json& run) {
  return Field(Field(run, loggp::kSection), loggp::kPoints);
}

std::string Us(double ns) { return Fmt("%.3f", ns / 1000); }

// The flags of a derived entry: why a value holds only as a bound.
std::string Flags(const json& d) {
  std::string flags;
  if (d.value(key::kSenderBound, false)) flags += " sender-bound";
  if (!d.value(key::kDelayCoversGap, true)) flags += " d<gap";
  return flags.empty() ? " -" : flags;
}

// fn(label, entry) for each measured entry of each size.
void ForEachLoggpEntry(const json& run, const StatsFn& fn) {
  for (const json& pt : Points(run)) {
    const std::string size = std::to_string(Whole(pt, key::kSize, 0));
    for (const char* entry : loggp::kMeasured) {
      if (pt.contains(entry)) fn("loggp s=" + size + " " + entry, pt[entry]);
    }
  }
}

}  // namespace

void LoggpStats(const json& run, const StatsFn& fn) {
  ForEachLoggpEntry(run, [&](const std::string& label, const json& entry) {
    if (entry.contains(stat::kStats)) fn(label, Field(entry, stat::kStats));
  });
}

void WriteLoggpRaw(const json& run, std::ostream& out) {
  ForEachLoggpEntry(run, [&](const std::string& label, const json& entry) {
    for (const json& v : Field(entry, stat::kRawNs))
      out << label << " " << v.get<double>() << "\n";
  });
}

void PrintLoggpTable(const json& run, std::ostream& out) {
  const int n = Whole(Field(run, loggp::kSection), key::kN, 0);
  out << "# loggp n=" << n
      << ": Netgauge's PRTT(n,d,s), medians in usec (gap = max(o_s, "
         "g+(s-1)G); L, g, G: models/loggp/loggpfit RUN.json)\n";
  out << "  size     inline PRTT(1,0,s) PRTT(n,0,s) PRTT(n,d,s) d          "
         "gap        o_s        o_r        PRTT/2     flags\n";
  for (const json& pt : Points(run)) {
    const json& d = Field(Field(pt, key::kDerived), stat::kMedianNs);
    const auto median = [&](const char* entry) {
      return Us(Field(pt, entry).value(stat::kMedianNs, 0.0));
    };
    char line[200];
    std::snprintf(
        line, sizeof(line),
        "  %-8d %-6s %-11s %-11s %-11s %-10s %-10s %-10s %-10s %-10s",
        Whole(pt, key::kSize, 0), pt.value(key::kInline, false) ? "yes" : "no",
        median(key::kPrtt10).c_str(), median(key::kPrttN0).c_str(),
        median(key::kPrttNd).c_str(), Us(pt.value(key::kDelayNs, 0.0)).c_str(),
        Us(d.value(key::kGapNs, 0.0)).c_str(),
        Us(d.value(key::kOsNs, 0.0)).c_str(),
        Us(d.value(key::kOrNs, 0.0)).c_str(),
        Us(d.value(key::kHalfRttNs, 0.0)).c_str());
    out << line << Flags(d) << "\n";
  }
}

void WriteLoggpCsv(const json& run, std::ostream& out) {
  out << "size,inline,delay_ns,entry,min_ns,median_ns,mean_ns,p99_ns,samples\n";
  for (const json& pt : Points(run)) {
    for (const char* entry : loggp::kMeasured) {
      const json& e = Field(pt, entry);
      out << Whole(pt, key::kSize, 0) << "," << pt.value(key::kInline, false)
          << "," << pt.value(key::kDelayNs, 0.0) << "," << entry << ","
          << e.value(stat::kMinNs, 0.0) << "," << e.value(stat::kMedianNs, 0.0)
          << "," << e.value(stat::kMeanNs, 0.0) << ","
          << e.value(stat::kP99Ns, 0.0) << "," << Whole(e, stat::kSamples, 0ull)
          << "\n";
    }
  }
}

}  // namespace verbsbench::internal
