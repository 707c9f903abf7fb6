#include "verbsbench/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

#include "verbsbench/mode.h"
#include "verbsbench/result.h"
#include "verbsbench/stats.h"
#include "verbsbench/timer.h"

namespace verbsbench {
namespace {

using nlohmann::json;

Recorder Synthetic(double centre, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(centre), 0.2);
  Recorder r(100, 10);
  for (int i = 0; i < n; ++i) r.Add(d(rng));
  return r;
}

json SyntheticRun(const std::string& mode) {
  const Timer timer(2.5e9, 12.0);
  json run = {{"tool", "verbsbench"},
              {"mode", mode},
              {"params", {{"iters", 500}}},
              {"device",
               {{"name", "fake0"}, {"connection", "tcp"}, {"max_inline", 64}}},
              {"timer", timer.ToJson()}};
  if (mode == "lop") {
    json curves = json::array();
    for (const char* name : {"round_1n_send_inline", "os_send_single"}) {
      json c = {{"name", name},
                {"kind", name[1] == 'o' ? "round" : "overhead"},
                {"points", json::array()}};
      for (int p = 1; p <= 3; ++p) {
        const Recorder r = Synthetic(1000.0 * p, 500, static_cast<uint64_t>(p));
        const auto& h = r.histogram();
        c["points"].push_back({{"p", p},
                               {"min_ns", h.min()},
                               {"median_ns", h.Quantile(0.5)},
                               {"mean_ns", h.mean()},
                               {"p99_ns", h.Quantile(0.99)},
                               {"samples", h.count()},
                               {"stats", StatsJson(r)},
                               {"raw_ns", r.raw()}});
      }
      curves.push_back(c);
    }
    run["lop"] = {{"curves", curves}};
  } else {
    json results = json::array();
    for (size_t size : {8, 64}) {
      const Recorder r =
          Synthetic(5000.0 + static_cast<double>(size), 500, size);
      results.push_back({{"op", "send"},
                         {"size", size},
                         {"inline", false},
                         {"iterations", 500},
                         {"metric", "rtt/2"},
                         {"bw_MiBps", 1.5},
                         {"msg_rate_Mpps", 0.01},
                         {"stats", StatsJson(r)},
                         {"raw_ns", r.raw()}});
    }
    run["results"] = results;
  }
  return run;
}

TEST(Report, JsonRoundTrips) {
  for (const char* mode : {"lat", "bw", "lop"}) {
    const json run = SyntheticRun(mode);
    std::ostringstream out;
    WriteJson(run, out);
    const json back = json::parse(out.str());
    EXPECT_EQ(back, run) << mode;
  }
}

TEST(Report, TableHasOneRowPerResult) {
  std::ostringstream out;
  PrintTable(SyntheticRun("lat"), out);
  const std::string s = out.str();
  EXPECT_NE(s.find("t_typical[usec]"), std::string::npos);
  EXPECT_NE(s.find("\n 8 "), std::string::npos);
  EXPECT_NE(s.find("\n 64 "), std::string::npos);
  EXPECT_NE(s.find("overhead min 12.0 ns"), std::string::npos);
}

int Lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(Report, CsvRowsAndColumns) {
  std::ostringstream lat, lop;
  WriteCsv(SyntheticRun("lat"), lat);
  WriteCsv(SyntheticRun("lop"), lop);
  EXPECT_EQ(Lines(lat.str()), 3);
  EXPECT_EQ(Lines(lop.str()), 7);
  std::istringstream in(lop.str());
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_EQ(std::count(header.begin(), header.end(), ','),
            std::count(row.begin(), row.end(), ','));
  EXPECT_EQ(row.rfind("round_1n_send_inline,round,", 0), 0u) << row;
}

TEST(Report, HistogramBlocksEndAtCdfOne) {
  std::ostringstream out;
  WriteHistograms(SyntheticRun("lop"), out);
  std::istringstream in(out.str());
  std::string line, last_data;
  int blocks = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# lo_ns", 0) == 0) ++blocks;
    if (!line.empty() && line[0] != '#') last_data = line;
    if (line.empty() && !last_data.empty()) {
      std::istringstream f(last_data);
      double lo, hi, count, pdf, cdf;
      f >> lo >> hi >> count >> pdf >> cdf;
      EXPECT_NEAR(cdf, 1.0, 1e-9) << last_data;
      last_data.clear();
    }
  }
  // The timer, 2 curves x 3 points, then their cycle minimums.
  EXPECT_EQ(blocks, 1 + 6 + 6);
  const std::string s = out.str();
  const size_t last_point = s.find("# os_send_single p=3\n");
  const size_t first_minimums =
      s.find("# round_1n_send_inline p=1 cycle minimums\n");
  ASSERT_NE(first_minimums, std::string::npos);
  EXPECT_LT(last_point, first_minimums);
}

// 500 samples in cycles of 100: five minimums, summarised in the CSV next to
// the distribution they come from.
TEST(Report, CsvHasTheCycleMinimumsAndMigrations) {
  json run = SyntheticRun("lat");
  run["results"][1]["stats"]["migrated_samples"] = 4;
  std::ostringstream csv;
  WriteCsv(run, csv);
  std::istringstream in(csv.str());
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_NE(header.find(",modes,cycles,cycle_min_min_ns,cycle_min_p50_ns,"
                        "cycle_min_p90_ns,cycle_min_max_ns,cycle_min_modes,"
                        "migrated_samples"),
            std::string::npos)
      << header;
  EXPECT_EQ(std::count(header.begin(), header.end(), ','),
            std::count(row0.begin(), row0.end(), ','));
  const json& mins = run["results"][0]["stats"]["cycle_min"];
  EXPECT_EQ(mins["count"], 5);
  std::ostringstream min_ns;
  min_ns << std::setprecision(12) << mins["min_ns"].get<double>();
  EXPECT_NE(row0.find(",5," + min_ns.str() + ","), std::string::npos) << row0;
  EXPECT_EQ(row0.substr(row0.size() - 2), ",0");
  EXPECT_EQ(row1.substr(row1.size() - 2), ",4");
}

TEST(Report, MigratedSamplesGetAWarningLine) {
  json run = SyntheticRun("lat");
  std::ostringstream quiet_table, quiet_err;
  PrintTable(run, quiet_table);
  PrintWarnings(run, quiet_err);
  EXPECT_EQ(quiet_table.str().find("migrated"), std::string::npos);
  EXPECT_EQ(quiet_err.str(), "");
  run["results"][1]["stats"]["migrated_samples"] = 3;
  std::ostringstream table, err;
  PrintTable(run, table);
  PrintWarnings(run, err);
  EXPECT_NE(table.str().find("\n 64 "), std::string::npos);
  EXPECT_NE(table.str().find("   warning: 3 of 500 samples migrated between "
                             "CPUs (pin the processes: taskset -c)\n"),
            std::string::npos)
      << table.str();
  EXPECT_EQ(err.str(),
            "verbsbench: warning: 3 samples in 1 distribution(s) (of 500) "
            "migrated between CPUs; pin the processes (taskset -c)\n");
}

TEST(Report, RawHasEverySample) {
  std::ostringstream out;
  WriteRaw(SyntheticRun("lat"), out);
  EXPECT_EQ(Lines(out.str()), 1 + 2 * 10);
}

// A loggp run as verbsbench writes it (ToJson, mode.h): two sizes, the
// delayed train slower than PRTT(1,0,s) + (n-1) d, a gap below o_s at 8 B.
json LoggpRun() {
  Result result;
  result.options.mode = Mode::kLoggp;
  result.options = Normalize(result.options);
  result.options.loggp_n = 4;
  result.options.raw_limit = 10;
  uint64_t seed = 1;
  for (size_t size : {8, 4096}) {
    LoggpPoint pt;
    pt.size = size;
    pt.inline_used = size == 8;
    pt.iterations = 300;
    pt.delay_ns = 20000;
    const double gap = size == 8 ? 900 : 3000;
    pt.prtt_1_0 = Synthetic(20000, 300, seed++);
    pt.prtt_n_0 = Synthetic(20000 + 3 * gap, 300, seed++);
    pt.prtt_n_d = Synthetic(20000 + 3 * (20000 + 1000), 300, seed++);
    pt.o_r = Synthetic(300, 300, seed++);
    result.loggp.push_back(std::move(pt));
  }
  return ToJson(result);
}

TEST(Report, LoggpTableCsvAndRawCoverEverySize) {
  const json run = LoggpRun();
  std::ostringstream table, csv, raw, hist;
  PrintTable(run, table);
  WriteCsv(run, csv);
  WriteRaw(run, raw);
  WriteHistograms(run, hist);
  const std::string t = table.str();
  EXPECT_NE(t.find("# loggp n=4"), std::string::npos) << t;
  EXPECT_NE(t.find("\n  8 "), std::string::npos) << t;
  EXPECT_NE(t.find("\n  4096 "), std::string::npos) << t;
  EXPECT_EQ(Lines(csv.str()), 1 + 2 * 4);
  EXPECT_EQ(Lines(raw.str()), 1 + 2 * 4 * 10);
  EXPECT_NE(raw.str().find("loggp s=4096 o_r "), std::string::npos);
  EXPECT_NE(hist.str().find("# loggp s=8 prtt_n_d\n"), std::string::npos);
}

}  // namespace
}  // namespace verbsbench
