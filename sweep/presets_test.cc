#include "sweep/presets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "sweep/metric.h"

namespace verbsemu::sweep {
namespace {

// OSU micro-benchmarks print each row with "%-*d%*.*f\n", 10, size,
// FIELD_WIDTH (20), FLOAT_PRECISION (2).
std::string OsuRow(int size, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-*d%*.*f\n", 10, size, 20, 2, v);
  return buf;
}

struct Sample {
  std::string spec;    // preset:NAME[:ARG]
  std::string output;  // lines as the tool prints them
  double want;
};

// One sample per preset, each line as the tool's source prints it.
std::map<std::string, Sample> Samples() {
  const std::string perftest_lat =
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
      "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% "
      "percentile[usec] \n"
      " 2       1000          1.76           6.12         1.79                "
      "1.80             0.06            1.88                    6.12\n";
  return {
      {"perftest_t_min", {"preset:perftest_t_min", perftest_lat, 1.76}},
      {"perftest_t_typical",
       {"preset:perftest_t_typical:2", perftest_lat, 1.79}},
      {"perftest_bw",
       {"preset:perftest_bw",
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   "
        "MsgRate[Mpps]\n 65536      1000             2757.96            "
        "2757.93\t\t   0.044127\n",
        2757.93}},
      {"osu_latency",
       {"preset:osu_latency:8",
        "# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n" +
            OsuRow(4, 1.61) + OsuRow(8, 1.63) + OsuRow(16, 1.70),
        1.63}},
      {"osu_bw",
       {"preset:osu_bw:4194304",
        "# Size      Bandwidth (MB/s)\n" + OsuRow(2097152, 12011.5) +
            OsuRow(4194304, 12091.27),
        12091.27}},
      {"osu_allreduce",
       {"preset:osu_allreduce:1024",
        "# Size       Avg Latency(us)\n" + OsuRow(1024, 12.34), 12.34}},
      {"imb_pingpong",
       {"preset:imb_pingpong:1024",
        "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
        "         1024         1000         2.20       465.89\n",
        2.20}},
      {"imb_collective",
       {"preset:imb_collective:1",
        "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
        "            0         1000         0.03         0.05         0.03\n"
        "            1         1000         9.87         9.96         9.92\n",
        9.92}},
      {"nccl_busbw",
       {"preset:nccl_busbw",
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 14.9966 \n#\n",
        14.9966}},
      {"nccl_time",
       {"preset:nccl_time:134217728",
        "   134217728      33554432     float     sum      -1  5871.07   22.86"
        "   22.86       0  5867.43   22.88   22.88       0\n",
        5871.07}},
      {"lammps",
       {"preset:lammps",
        "Loop time of 4.42173 on 2 procs for 500 steps with 256 atoms\n",
        4.42173}},
      {"hpcg",
       {"preset:hpcg",
        "Final Summary::HPCG result is VALID with a GFLOP/s rating "
        "of=0.950083\n",
        0.950083}},
      {"wall", {"preset:wall", "anything\n", 3.5}},
  };
}

TEST(PresetsTest, EveryPresetReadsItsToolsLine) {
  const auto samples = Samples();
  for (const Preset& p : Presets()) {
    const auto it = samples.find(std::string(p.name));
    ASSERT_NE(it, samples.end()) << "no sample line for " << p.name;
    const Sample& s = it->second;
    std::string why;
    const auto m = Metric::Parse(s.spec, "", &why);
    ASSERT_TRUE(m) << why;
    const auto v = m->FromOutput(s.output, 3.5, &why);
    ASSERT_TRUE(v) << s.spec << ": " << why;
    EXPECT_DOUBLE_EQ(*v, s.want) << s.spec;
    EXPECT_FALSE(LabelFor(s.spec, "", "").unit.empty()) << s.spec;
  }
}

TEST(PresetsTest, APresetThatMatchesNothingSaysSoInOneLine) {
  std::string why;
  const auto m = Metric::Parse("preset:osu_latency:8192", "", &why);
  ASSERT_TRUE(m) << why;
  EXPECT_FALSE(m->FromOutput(OsuRow(8, 1.5), 0, &why));
  EXPECT_TRUE(why.starts_with("preset:osu_latency:8192 found no line")) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  // HPCG 2.x's YAML report, and an INVALID verdict, which is no rating.
  EXPECT_EQ(Metric::Parse("preset:hpcg", "", &why)
                ->FromOutput(
                    "  HPCG result is VALID with a GFLOP/s rating of: 1.25\n",
                    0, &why),
            1.25);
  EXPECT_FALSE(
      Metric::Parse("preset:hpcg", "", &why)
          ->FromOutput("HPCG result is INVALID with a GFLOP/s rating of=1.2\n",
                       0, &why));
}

TEST(PresetsTest, BadNamesAndArgumentsAreOneLine) {
  std::string why;
  EXPECT_FALSE(Metric::Parse("preset:osu_latncy", "", &why));
  EXPECT_NE(why.find("the presets are perftest_t_min,"), std::string::npos)
      << why;
  EXPECT_FALSE(Metric::Parse("preset:osu_latency", "", &why));
  EXPECT_NE(why.find("preset:osu_latency:8192"), std::string::npos) << why;
  EXPECT_FALSE(Metric::Parse("preset:osu_latency:8k", "", &why));
  EXPECT_FALSE(Metric::Parse("preset:lammps:3", "", &why));
  EXPECT_NE(why.find("takes no :ARG"), std::string::npos) << why;
}

TEST(PresetsTest, LabelsNameTheQuantityAndUnit) {
  const MetricLabel osu = LabelFor("preset:osu_latency:8192", "", "");
  EXPECT_EQ(osu.Axis(), "latency at 8192 B (us)");
  EXPECT_EQ(osu.better, Better::kLower);
  EXPECT_EQ(LabelFor("preset:nccl_busbw", "", "").better, Better::kHigher);
  EXPECT_TRUE(LabelFor("preset:wall", "", "").wall_time);
  EXPECT_TRUE(LabelFor("runtime", "", "").wall_time);
  EXPECT_EQ(LabelFor("regex:Loop time of ([0-9.]+)", "", "").Axis(),
            "Loop time");
  EXPECT_EQ(LabelFor("regex:Loop time of ([0-9.]+)", "", "s").Axis(),
            "Loop time (s)");
  EXPECT_EQ(LabelFor("regex:^\\s*t_min=(.*)", "latency", "us").Axis(),
            "latency (us)");
  EXPECT_EQ(LabelFor("regex:t\\.min ([0-9]+)", "", "").name, "t.min");
  EXPECT_EQ(LabelFor("regex:([0-9]+)", "", "").name, "regex:([0-9]+)");
  EXPECT_EQ(LabelFor("json:/results/0/bw", "", "").name, "bw");
}

}  // namespace
}  // namespace verbsemu::sweep
