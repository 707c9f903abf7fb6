#include "sweep/runs_csv.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

RunRecord Sample() {
  RunRecord r;
  r.run = 7;
  r.block = 1;
  r.point = 3;
  r.program = "pingpong";
  r.latency = "2us";
  r.latency_ns = 2000;
  r.bandwidth = "50%";
  r.bandwidth_share = 0.5;
  r.bw_mode = "pace";
  r.metric = 12.625;
  r.wall_s = 3.5;
  r.status = "exit 0";
  r.valid = false;
  r.reports = 2;
  r.reason = "not emulated: h.1.txt: WARNING: \"x\", y";
  r.waits = 2000;
  r.wait_ns = 2103.5;
  r.wait_own_ns = 2001.25;
  return r;
}

TEST(RunsCsvTest, RowsRoundTripWithQuotesAndCommas) {
  RunRecord failed = Sample();
  failed.metric.reset();
  failed.run = 8;
  const std::string text = RunsCsvHeader() + "\n" + RunsCsvRow(Sample()) +
                           "\n" + RunsCsvRow(failed) + "\n";
  std::string why;
  const auto runs = ReadRunsCsv(text, &why);
  ASSERT_TRUE(runs) << why;
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ(RunsCsvRow((*runs)[0]), RunsCsvRow(Sample()));
  EXPECT_EQ((*runs)[0].reason, Sample().reason);
  EXPECT_EQ((*runs)[0].waits, 2000);
  EXPECT_EQ((*runs)[0].wait_ns, 2103.5);
  EXPECT_EQ((*runs)[0].wait_own_ns, 2001.25);
  EXPECT_FALSE((*runs)[1].metric);
  EXPECT_TRUE(RunsCsvHeader().starts_with("run,block,point,program,latency,"));
  for (const char* col :
       {"block", "latency_ns", "bandwidth", "bw_mode", "metric", "wall_s",
        "valid", "waits", "wait_ns", "wait_own_ns"}) {
    EXPECT_NE(RunsCsvHeader().find(col), std::string::npos) << col;
  }
}

TEST(RunsCsvTest, LogGpValuesRoundTrip) {
  RunRecord r = Sample();
  r.durations = {"1us", "0", "250ns"};
  r.durations_ns = {1000, 0, 250};
  std::string why;
  const auto runs =
      ReadRunsCsv(RunsCsvHeader() + "\n" + RunsCsvRow(r) + "\n", &why);
  ASSERT_TRUE(runs) << why;
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].durations, r.durations);
  EXPECT_EQ((*runs)[0].durations_ns, r.durations_ns);
  EXPECT_TRUE(RunsCsvHeader().ends_with(
      ",overhead,overhead_ns,recv_overhead,recv_overhead_ns,gap,gap_ns"));
}

TEST(RunsCsvTest, ARowCutShortIsLeftOutAndABadOneRefused) {
  std::string why;
  const std::string whole =
      RunsCsvHeader() + "\n" + RunsCsvRow(Sample()) + "\n";
  const auto cut = ReadRunsCsv(whole + "8,1,2,app,2u", &why);
  ASSERT_TRUE(cut) << why;
  EXPECT_EQ(cut->size(), 1u);
  EXPECT_FALSE(ReadRunsCsv(whole + "8,1,2,app\n", &why));
  EXPECT_NE(why.find("line 3"), std::string::npos) << why;
  EXPECT_FALSE(ReadRunsCsv("a,b\n", &why));
  EXPECT_NE(why.find("header"), std::string::npos) << why;
  std::string bad = RunsCsvRow(Sample());
  bad.replace(bad.find(",12.625,"), 8, ",1e999,");
  EXPECT_FALSE(ReadRunsCsv(RunsCsvHeader() + "\n" + bad + "\n", &why));
}

}  // namespace
}  // namespace verbsemu::sweep
