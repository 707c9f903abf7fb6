#include "cli/cli.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace verbsemu::cli {
namespace {
namespace po = boost::program_options;

po::options_description Options() {
  po::options_description o("options");
  o.add_options()("help,h", "this text")(
      "count", po::value<int>()->default_value(1), "how many");
  return o;
}

TEST(ParseTest, OptionsAndPositionalsInOrder) {
  const po::variables_map vm = Parse({"predict", "--count", "3", "a>b"},
                                     Options(), {"command", "graph"});
  EXPECT_EQ(vm["command"].as<std::string>(), "predict");
  EXPECT_EQ(vm["graph"].as<std::string>(), "a>b");
  EXPECT_EQ(vm["count"].as<int>(), 3);
}

TEST(ParseTest, AnUnknownOptionIsAUsageError) {
  try {
    Parse({"--fast"}, Options());
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "unrecognised option '--fast'");
  }
}

// Boost fills "%original_token%" and the like in its messages until none is
// left: a token holding one looped forever (found by //shim:knobs_fuzz).
// Each of these must give one line, with '?' for the token's '%'.
TEST(ParseTest, ATokenHoldingAMessagePlaceholderIsRefusedNotLooped) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--ma%original_token%"},
                                             {"--x%option%y"},
                                             {"--%canonical_option%"},
                                             {"--count=%value%"},
                                             {"--count", "%value%"},
                                             {"--count=%option%"}}) {
    try {
      Parse(args, Options());
      FAIL() << "no error for " << args[0];
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find('?'), std::string::npos) << what;
    }
  }
  // A name that is a prefix of several options, even an empty one, is
  // refused as a usage error, not thrown past the parser.
  EXPECT_THROW(Parse({"--=", "2"}, Options()), UsageError);
  EXPECT_THROW(Parse({"--", "2"}, Options()), UsageError);
  // A '%' in a token that holds no placeholder is shown as it is.
  try {
    Parse({"--count=40%"}, Options());
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("40%"), std::string::npos) << e.what();
  }
}

TEST(ParseTest, AbbreviationsUnlessWholeNamesAreAsked) {
  EXPECT_EQ(Parse({"--cou", "3"}, Options())["count"].as<int>(), 3);
  EXPECT_THROW(Parse({"--cou", "3"}, Options(), {}, Names::kWhole), UsageError);
}

TEST(ParseTest, ABadValueAndAnExtraPositionalAreUsageErrors) {
  EXPECT_THROW(Parse({"--count", "many"}, Options()), UsageError);
  EXPECT_THROW(Parse({"one", "two"}, Options(), {"input"}), UsageError);
}

TEST(ParseTest, AnExtraPositionalIsNamed) {
  try {
    Parse({"one", "two"}, Options(), {"input"});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "unexpected argument 'two'");
  }
}

po::options_description CommandOptions() {
  po::options_description o("options");
  o.add_options()("help,h", Switch(), "this text")(
      "list", po::value<std::vector<std::string>>()->value_name("LIST"),
      "a list")("quiet", Switch(), "no output");
  return o;
}

TEST(ParseWithCommandTest, TheCommandStartsAtDashDashOrTheFirstWord) {
  std::vector<std::string> command;
  po::variables_map vm =
      ParseWithCommand({"--list", "a", "--quiet", "--", "run", "--list", "b"},
                       CommandOptions(), &command);
  EXPECT_EQ(vm["list"].as<std::vector<std::string>>(),
            std::vector<std::string>{"a"});
  EXPECT_EQ(vm.count("quiet"), 1u);
  EXPECT_EQ(command, (std::vector<std::string>{"run", "--list", "b"}));
  EXPECT_EQ(ParseWithCommand({"--quiet", "--quiet"}, CommandOptions(), &command)
                .count("quiet"),
            1u);
  vm = ParseWithCommand({"--list=x", "--list", "-", "run", "-h"},
                        CommandOptions(), &command);
  EXPECT_EQ(vm["list"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"x", "-"}));
  EXPECT_EQ(vm.count("help"), 0u);
  EXPECT_EQ(command, (std::vector<std::string>{"run", "-h"}));
  vm = ParseWithCommand({"--list=", "-h"}, CommandOptions(), &command);
  EXPECT_EQ(vm["list"].as<std::vector<std::string>>(),
            std::vector<std::string>{""});
  EXPECT_EQ(vm.count("help"), 1u);
  EXPECT_TRUE(command.empty());
}

TEST(ParseWithCommandTest, AValueIsNeverReadAsAnOption) {
  std::vector<std::string> command;
  const po::variables_map vm = ParseWithCommand(
      {"--list", "-h", "--list", "--quiet=", "--list", "", "run"},
      CommandOptions(), &command);
  EXPECT_EQ(vm["list"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"-h", "--quiet=", ""}));
  EXPECT_EQ(vm.count("help") + vm.count("quiet"), 0u);
  EXPECT_EQ(command, std::vector<std::string>{"run"});
}

TEST(ParseWithCommandTest, TheOptionsGivenInTheirOrder) {
  std::vector<std::string> command;
  Given given;
  ParseWithCommand({"--list", "b", "-h", "--quiet", "--list=a", "--list", "",
                    "--", "run", "--list", "c"},
                   CommandOptions(), &command, &given);
  EXPECT_EQ(given, (Given{{"list", "b"},
                          {"help", ""},
                          {"quiet", ""},
                          {"list", "a"},
                          {"list", ""}}));
  EXPECT_EQ(command, (std::vector<std::string>{"run", "--list", "c"}));
}

TEST(ParseWithCommandTest, NamesAreWholeAndRefusalsAreUsageErrors) {
  std::vector<std::string> command;
  EXPECT_THROW(
      ParseWithCommand({"--li", "a", "run"}, CommandOptions(), &command),
      UsageError);
  EXPECT_THROW(ParseWithCommand({"--list"}, CommandOptions(), &command),
               UsageError);
  EXPECT_THROW(
      ParseWithCommand({"--quiet=1", "run"}, CommandOptions(), &command),
      UsageError);
  try {
    ParseWithCommand({"-", "run"}, CommandOptions(), &command);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "unexpected argument '-'");
  }
}

TEST(MarkdownTableTest, ARowPerOptionInOrder) {
  po::options_description o("options");
  o.add_options()("help,h", "this text")(
      "mode", po::value<std::string>()->value_name("pad|pace"), "a or b|c");
  EXPECT_EQ(MarkdownTable(o),
            "| option | meaning |\n"
            "| --- | --- |\n"
            "| `--help`, `-h` | this text |\n"
            "| `--mode pad\\|pace` | a or b\\|c |\n");
}

TEST(HelpTest, UsageThenOptions) {
  const std::string help = Help("usage: tool [options] INPUT", Options());
  EXPECT_TRUE(help.starts_with("usage: tool [options] INPUT\noptions:\n"))
      << help;
  EXPECT_NE(help.find("--count"), std::string::npos) << help;
}

TEST(RunTest, ExitCodesAndOneLinePerError) {
  std::ostringstream err;
  EXPECT_EQ(cli::Run("tool", err, [] { return 0; }), 0);
  EXPECT_EQ(cli::Run("tool", err, [] { return 3; }), 3);
  EXPECT_EQ(err.str(), "");
  EXPECT_EQ(cli::Run("tool: error", err,
                     []() -> int { throw UsageError("--count must be > 0"); }),
            2);
  EXPECT_EQ(err.str(), "tool: error: --count must be > 0\n");
  err.str("");
  EXPECT_EQ(cli::Run("tool", err,
                     []() -> int { throw std::runtime_error("no such file"); }),
            1);
  EXPECT_EQ(err.str(), "tool: no such file\n");
  err.str("");
  EXPECT_EQ(cli::Run("tool", err, []() -> int { throw 42; }), 1);
  EXPECT_EQ(err.str(), "tool: unexpected failure\n");
}

int Answer(const std::vector<std::string>& args) {
  return static_cast<int>(args.size());
}

const Subcommand kTable[] = {
    {"run", "[FLAGS] -- CMD", "", Answer},
    {"knobs", "", "lists the settings", Answer},
    {"shm-clean", "[--unlink]", "", Answer},
};

TEST(SubcommandTest, TheTableMakesTheUsage) {
  EXPECT_EQ(SubcommandUsage("prog", kTable),
            "usage: prog run [FLAGS] -- CMD\n"
            "       prog knobs  (lists the settings)\n"
            "       prog shm-clean [--unlink]\n");
}

TEST(SubcommandTest, TheTableMakesTheDispatch) {
  std::string why;
  const Subcommand* c = FindSubcommand(kTable, "shm-clean", &why);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->run({"--unlink"}), 1);
  EXPECT_EQ(why, "");
}

TEST(SubcommandTest, AnUnknownNameListsTheKnownOnesOnOneLine) {
  std::string why;
  EXPECT_EQ(FindSubcommand(kTable, "swe\nep", &why), nullptr);
  EXPECT_EQ(why, "unknown command 'swe?ep' (expected run, knobs or shm-clean)");
}

}  // namespace
}  // namespace verbsemu::cli
