// lop's writers: its curves, each point a p with its statistics.
#include <cstdio>

#include "models/lop/contract.h"
#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/report_fields.h"

namespace verbsbench::internal {

using nlohmann::json;

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

// "NAME p=P" for each measured point; derived points have no stats.
void LopStats(const json& run, const StatsFn& fn) {
  for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
    for (const json& pt : Field(c, lop::key::kPoints)) {
      if (pt.contains(lop::key::kStats)) {
        fn(c.value(lop::key::kName, std::string()) +
               " p=" + std::to_string(Whole(pt, lop::key::kP, 0)),
           Field(pt, lop::key::kStats));
      }
    }
  }
}

void WriteLopRaw(const json& run, std::ostream& out) {
  for (const json& c : Field(Field(run, lop::kSection), lop::kCurves)) {
    for (const json& pt : Field(c, lop::key::kPoints)) {
      if (!pt.contains(lop::key::kRawNs)) continue;
      const std::string label = c.value(lop::key::kName, std::string()) + "/p" +
                                std::to_string(Whole(pt, lop::key::kP, 0));
      for (const json& v : Field(pt, lop::key::kRawNs))
        out << label << " " << v.get<double>() << "\n";
    }
  }
}

}  // namespace verbsbench::internal
