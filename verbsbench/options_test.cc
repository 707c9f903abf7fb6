#include "verbsbench/options.h"

#include <gtest/gtest.h>

#include "verbsbench/cli.h"
#include "verbsbench/engine.h"
#include "verbsbench/mode.h"

namespace verbsbench {
namespace {

TEST(ParseSizes, SingleAndSuffixes) {
  EXPECT_EQ(ParseSizes("64"), std::vector<size_t>{64});
  EXPECT_EQ(ParseSizes("4K"), std::vector<size_t>{4096});
  EXPECT_EQ(ParseSizes("1M"), std::vector<size_t>{1 << 20});
  EXPECT_EQ(ParseSizes("4KiB"), std::vector<size_t>{4096});
  EXPECT_EQ(ParseSizes("1G"), std::vector<size_t>{1 << 30});
}

TEST(ParseSizes, AmbiguousDecimalUnitsRefusedWithTheParsersReason) {
  for (const char* ambiguous : {"4KB", "1MB"}) {
    try {
      ParseSizes(ambiguous);
      ADD_FAILURE() << ambiguous << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(std::string("bad size '") + ambiguous + "': ", 0), 0u)
          << msg;
      EXPECT_NE(msg.find("ambiguous"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(ParseSizes, SweepIsPowersOfTwo) {
  const auto s = ParseSizes("1:4M");
  ASSERT_EQ(s.size(), 23u);
  EXPECT_EQ(s.front(), 1u);
  EXPECT_EQ(s.back(), 4u << 20);
  EXPECT_EQ(ParseSizes("3:12"), (std::vector<size_t>{3, 6, 12}));
}

TEST(ParseSizes, RejectsBadInput) {
  for (const char* bad :
       {"", "0", "-1", "12Q", "K", "4:2", "1:", ":4", "2G", "1.5K"}) {
    EXPECT_THROW(ParseSizes(bad), std::invalid_argument) << bad;
  }
}

TEST(ParseIntRange, ListsAndRanges) {
  EXPECT_EQ(ParseIntRange("4"), std::vector<int>{4});
  EXPECT_EQ(ParseIntRange("1:4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(ParseIntRange("1,2,8:9"), (std::vector<int>{1, 2, 8, 9}));
  for (const char* bad : {"", "0", "a", "3:1", "1,,2", "2x"}) {
    EXPECT_THROW(ParseIntRange(bad), std::invalid_argument) << bad;
  }
}

TEST(Normalize, ModeDefaults) {
  Options o;
  o.mode = Mode::kLop;
  o.peers = 4;
  const Options n = Normalize(o);
  EXPECT_EQ(n.ops, (std::vector<Op>{Op::kSend, Op::kWrite}));
  EXPECT_EQ(n.inline_modes, (std::vector<bool>{true, false}));
  EXPECT_EQ(n.p_values, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(n.sizes, std::vector<size_t>{8});
  o.mode = Mode::kLat;
  o.peers = 1;
  EXPECT_EQ(Normalize(o).sizes, std::vector<size_t>{2});
  EXPECT_EQ(Normalize(o).ops, std::vector<Op>{Op::kSend});
}

// loggp: Netgauge's sweep of sizes, send only, inline where it fits.
TEST(Normalize, LoggpDefaults) {
  Options o;
  o.mode = Mode::kLoggp;
  const Options n = Normalize(o);
  EXPECT_EQ(n.ops, std::vector<Op>{Op::kSend});
  EXPECT_EQ(n.inline_modes, std::vector<bool>{true});
  EXPECT_EQ(n.sizes.front(), 1u);
  EXPECT_EQ(n.sizes.back(), 65536u);
  EXPECT_EQ(n.sizes.size(), 17u);
  EXPECT_EQ(n.loggp_n, 16);
  EXPECT_EQ(n.ToJson()["loggp_n"], 16);
}

TEST(Normalize, RejectsInconsistentOptions) {
  Options o;
  // An unknown mode cannot be spelled as an Options; its text is refused.
  EXPECT_FALSE(verbsbench::Parse<Mode>("ping").has_value());
  o.mode = Mode::kLop;
  o.ops = {Op::kRead};
  EXPECT_THROW(Normalize(o), std::invalid_argument);
  o.ops = {Op::kSend};
  o.peers = 2;
  o.p_values = {3};
  EXPECT_THROW(Normalize(o), std::invalid_argument);
  o.mode = Mode::kLat;
  o.p_values = {};
  EXPECT_THROW(Normalize(o), std::invalid_argument);  // --peers is lop only
  o.peers = 1;
  o.post_list = 200;
  EXPECT_THROW(Normalize(o), std::invalid_argument);  // > window
}

CommandLine Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "verbsbench");
  return ParseCommandLine(static_cast<int>(args.size()), args.data());
}

TEST(Enums, EachValueHasOneSpellingThatParsesBack) {
  for (Mode v : {Mode::kLat, Mode::kBw, Mode::kLop, Mode::kLoggp})
    EXPECT_EQ(verbsbench::Parse<Mode>(Name(v)), v) << Name(v);
  for (Cm v : {Cm::kAuto, Cm::kRdmacm, Cm::kTcp})
    EXPECT_EQ(verbsbench::Parse<Cm>(Name(v)), v) << Name(v);
  for (Wait v : {Wait::kSpin, Wait::kYield, Wait::kEvent})
    EXPECT_EQ(verbsbench::Parse<Wait>(Name(v)), v) << Name(v);
  for (Op v : {Op::kSend, Op::kWrite, Op::kRead})
    EXPECT_EQ(verbsbench::Parse<Op>(Name(v)), v) << Name(v);
  EXPECT_EQ(Choices<Mode>(), "lat, bw, lop or loggp");
  EXPECT_EQ(Choices<Wait>(), "spin, yield or event");
  EXPECT_FALSE(verbsbench::Parse<Op>("atomic").has_value());
}

TEST(Options, JsonSpellsTheEnums) {
  Options o;
  o.mode = Mode::kBw;
  o.cm = Cm::kRdmacm;
  o.wait = Wait::kYield;
  o.ops = {Op::kWrite, Op::kRead};
  const nlohmann::json j = o.ToJson();
  EXPECT_EQ(j["mode"], "bw");
  EXPECT_EQ(j["cm"], "rdmacm");
  EXPECT_EQ(j["wait"], "yield");
  EXPECT_EQ(j["ops"], nlohmann::json({"write", "read"}));
  EXPECT_EQ(j["role"], "root");
}

TEST(ParseCommandLine, TextBecomesEnums) {
  const auto cl =
      Parse({"bw", "--cm", "tcp", "--wait", "event", "--op", "write"});
  EXPECT_EQ(cl.options.mode, Mode::kBw);
  EXPECT_EQ(cl.options.cm, Cm::kTcp);
  EXPECT_EQ(cl.options.wait, Wait::kEvent);
  EXPECT_EQ(Parse({"lat", "--yield"}).options.wait, Wait::kYield);
  EXPECT_THROW(Parse({"lat", "--op", "atomic"}), std::invalid_argument);
  EXPECT_THROW(Parse({"lat", "--wait", "nap"}), std::invalid_argument);
}

TEST(ParseCommandLine, RootAndPeer) {
  const auto root = Parse({"lat", "-s", "1:8", "--op", "send,write", "--op",
                           "read", "--inline", "both", "--json", "out.json"});
  EXPECT_EQ(root.options.mode, Mode::kLat);
  EXPECT_TRUE(root.options.host.empty());
  EXPECT_EQ(root.options.sizes, (std::vector<size_t>{1, 2, 4, 8}));
  EXPECT_EQ(root.options.ops,
            (std::vector<Op>{Op::kSend, Op::kWrite, Op::kRead}));
  EXPECT_EQ(root.outputs.json, "out.json");
  const auto peer = Parse({"lop", "10.0.0.1", "--port", "9000"});
  EXPECT_EQ(peer.options.host, "10.0.0.1");
  EXPECT_EQ(peer.options.port, 9000);
  EXPECT_TRUE(Parse({"--help"}).help);
}

TEST(ParseCommandLine, RawImpliesSampleLimit) {
  EXPECT_EQ(Parse({"lat", "--raw", "r.txt"}).options.raw_limit, 100000u);
  EXPECT_EQ(
      Parse({"lat", "--raw", "r.txt", "--raw-max", "7"}).options.raw_limit, 7u);
  EXPECT_EQ(Parse({"lat", "--raw-max", "8000000"}).options.raw_limit,
            kMaxRawSamples);
  EXPECT_THROW(Parse({"lat", "--raw-max", "8000001"}), std::invalid_argument);
}

TEST(ParseCommandLine, ModeResolution) {
  EXPECT_DOUBLE_EQ(Parse({"lat"}).options.mode_resolution, 0.20);
  EXPECT_DOUBLE_EQ(
      Parse({"lat", "--mode-resolution", "0.02"}).options.mode_resolution,
      0.02);
  EXPECT_EQ(Parse({"lat", "--mode-resolution", "0.02"})
                .options.ToJson()["mode_resolution"],
            0.02);
  for (const char* bad : {"0", "0.01", "1.5", "-0.1", "nan"}) {
    try {
      Parse({"lat", "--mode-resolution", bad});
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                "--mode-resolution must be a fraction from 0.02 to 1 (peaks "
                "closer than it, relative, are one mode; default 0.2)")
          << bad;
    }
  }
}

TEST(ParseCommandLine, LoggpDelayIsADuration) {
  const CommandLine cl =
      Parse({"loggp", "--loggp-delay", "2.5us", "--loggp-n", "8", "-s", "64"});
  EXPECT_DOUBLE_EQ(cl.options.loggp_delay_ns, 2500);
  EXPECT_EQ(cl.options.loggp_n, 8);
  EXPECT_EQ(cl.options.sizes, std::vector<size_t>{64});
}

TEST(ParseCommandLine, BadInputIsOneLine) {
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"pong"},
           {},
           {"lat", "-s", "12Q"},
           {"lat", "--inline", "maybe"},
           {"lat", "--cm", "ib"},
           {"lat", "--bogus"},
           {"lat", "-n", "x"},
           {"lat", "a", "b"},
           {"lat", "--timeout", "0"},
           {"lat", "--mode-resolution", "x"},
           {"lat", "--mode-resolution", "2"},
           {"loggp", "--op", "write"},
           {"loggp", "--inline", "both"},
           {"loggp", "--loggp-n", "1"},
           {"loggp", "--loggp-n", "129"},
           {"loggp", "--loggp-delay", "5"},
           {"loggp", "--loggp-delay", "-1us"}}) {
    try {
      Parse(bad);
      ADD_FAILURE() << "accepted bad input";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_FALSE(msg.empty());
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(CliMain, ExitStatusAndSingleErrorLine) {
  std::ostringstream out, err;
  const char* argv[] = {"verbsbench", "pong"};
  EXPECT_EQ(CliMain(2, argv, out, err), 2);
  EXPECT_EQ(
      err.str(),
      "verbsbench: unknown mode 'pong' (expected lat, bw, lop or loggp)\n");
  std::ostringstream out2, err2;
  const char* help[] = {"verbsbench", "--help"};
  EXPECT_EQ(CliMain(2, help, out2, err2), 0);
  EXPECT_NE(out2.str().find("usage: verbsbench lat|bw|lop"), std::string::npos);
}

}  // namespace
}  // namespace verbsbench
