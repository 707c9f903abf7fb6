#include "verbsbench/contend_cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace verbsbench {
namespace {

TEST(ContendCommandLine, Defaults) {
  const ContendCommandLine cl = ParseContendCommandLine({});
  EXPECT_TRUE(cl.contend.graphs.empty());  // calibrate at the root
  EXPECT_EQ(cl.contend.bytes, 4 << 20);
  EXPECT_EQ(cl.contend.wr_size, 65536);
  EXPECT_EQ(cl.contend.window, 4);
  EXPECT_EQ(cl.contend.reps, 5);
  EXPECT_EQ(cl.contend.lead_ns, 200000000);
  EXPECT_FALSE(cl.contend.yield);
  EXPECT_FALSE(cl.contend.steady);
  EXPECT_FALSE(cl.team.is_peer());
}

// --steady records each WR: an edge of more than 65536 WRs is refused at
// once, whether the default size or the edge's own makes it so.
TEST(ContendCommandLine, SteadyBoundsTheWrsOfAnEdge) {
  EXPECT_TRUE(
      ParseContendCommandLine({"--steady", "-s", "4MiB", "--wr-size", "64"})
          .contend.steady);
  EXPECT_THROW(
      ParseContendCommandLine({"--steady", "-s", "4MiB", "--wr-size", "63"}),
      std::invalid_argument);
  EXPECT_THROW(ParseContendCommandLine(
                   {"--steady", "--wr-size", "64", "-g", "a>b:8MiB"}),
               std::invalid_argument);
  EXPECT_NO_THROW(
      ParseContendCommandLine({"--wr-size", "64", "-g", "a>b:8MiB"}));
}

TEST(ContendCommandLine, GraphsSizesAndPeer) {
  const ContendCommandLine cl = ParseContendCommandLine(
      {"host1",     "-g",       "a>b",       "--graph", "duplex: a>b,b>a",
       "-s",        "1MiB",     "--wr-size", "32K",     "-t",
       "8",         "-r",       "3",         "--seed",  "7",
       "--closure", "--wait",   "yield",     "--lead",  "50ms",
       "--json",    "out.json", "--csv",     "out.csv"});
  EXPECT_EQ(cl.team.host, "host1");
  EXPECT_EQ(cl.contend.graphs,
            (std::vector<std::string>{"a>b", "duplex: a>b,b>a"}));
  EXPECT_EQ(cl.contend.bytes, 1 << 20);
  EXPECT_EQ(cl.contend.wr_size, 32768);
  EXPECT_EQ(cl.contend.window, 8);
  EXPECT_EQ(cl.contend.reps, 3);
  EXPECT_EQ(cl.contend.seed, 7u);
  EXPECT_TRUE(cl.contend.closure);
  EXPECT_TRUE(cl.contend.yield);
  EXPECT_EQ(cl.contend.lead_ns, 50000000);
  EXPECT_EQ(cl.json, "out.json");
  EXPECT_EQ(cl.csv, "out.csv");
}

TEST(ContendCommandLine, GraphsFile) {
  const std::string path = ::testing::TempDir() + "/graphs.txt";
  std::ofstream(path) << "# calibration\ncalibrate\n\nfan: a>b,a>c  # two\n";
  const ContendCommandLine cl = ParseContendCommandLine({"--graphs", path});
  EXPECT_EQ(cl.contend.graphs,
            (std::vector<std::string>{"calibrate", "fan: a>b,a>c  "}));
  std::remove(path.c_str());
}

// Bad input: one line, exit 2, before any peer is waited for.
TEST(ContendCommandLine, BadInputIsOneLineAndExit2) {
  const std::vector<std::vector<std::string>> bad = {
      {"-g", "a>a"},
      {"-g", "shapes:4"},
      {"-g", "random:1:9-2"},
      {"-s", "0"},
      {"-s", "4KB"},
      {"--window", "0"},
      {"--reps", "0"},
      {"--wait", "nap"},
      {"--lead", "1us"},
      {"--rte", "pigeon"},
      {"--seed", "99999999999"},
      {"--graphs", "/nonexistent/graphs"},
      {"--bogus"}};
  for (const auto& args : bad) {
    std::ostringstream out, err;
    EXPECT_EQ(ContendMain(args, out, err), 2) << args[0];
    const std::string e = err.str();
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    EXPECT_EQ(e.rfind("verbsbench: ", 0), 0u) << e;
  }
}

TEST(ContendCommandLine, Help) {
  std::ostringstream out, err;
  EXPECT_EQ(ContendMain({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: verbsbench contend"), std::string::npos);
  EXPECT_NE(out.str().find("--closure"), std::string::npos);
}

}  // namespace
}  // namespace verbsbench
