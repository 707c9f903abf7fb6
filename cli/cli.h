// The command line of every verbsemu program, one way: options parsed with
// Boost.Program_options, `--help` printing the usage and the options to
// stdout (exit 0), every error one line on stderr that says what to fix
// (exit 2 for a bad command line, 1 for anything else), and programs with
// subcommands dispatching from one table that also makes their usage.
// `--version` is //version's (version::Asked, version::Print).
#ifndef VERBSEMU_CLI_CLI_H_
#define VERBSEMU_CLI_CLI_H_

#include <boost/program_options.hpp>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace verbsemu::cli {

// Boost's one-line message for `e`, safe whatever the user typed: Boost
// fills its message templates by replacing "%option%", "%original_token%"
// and the like until none is left, so a token holding one of them made
// what() loop forever. Those tokens are shown with '?' for '%'; the rest
// as typed (the caller makes them printable).
std::string ErrorText(boost::program_options::error& e);

// A bad command line: exit 2.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An option without a value, for a description: given twice, it is given
// once (an option described without a value refuses the second).
boost::program_options::typed_value<bool>* Switch();

// How an option may be named: an unambiguous start of its name ("--iter"
// for --iters), or only its whole name.
enum class Names { kAbbreviated, kWhole };

// Parses `args` (without the program's name) against `options`, the ones
// --help shows, and `positional`: names of hidden options that take the
// positional arguments in order, one each (a further one is an error:
// "unexpected argument 'X'"). Throws UsageError with Boost's one-line
// reason.
boost::program_options::variables_map Parse(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& options,
    std::initializer_list<const char*> positional = {},
    Names names = Names::kAbbreviated);

// The options given on a command line in the order given, each by its long
// name with its value ("" for a switch), an option given twice listed
// twice: for a program whose later option overrides an earlier one of
// another name, or which refuses the first bad value given.
using Given = std::vector<std::pair<std::string, std::string>>;

// The same for a program that runs a command, `PROGRAM [OPTIONS] [--]
// COMMAND ARGS...`: the options end at "--" or at the first argument that
// is neither an option nor an option's value, and that command and its
// arguments go to `*command` as given, options of their own included.
// Options are named in full (no abbreviations), so that which argument is
// a value does not depend on a guess. "--NAME=" gives NAME an empty value.
// `given`, when not null, receives the options in the order given.
boost::program_options::variables_map ParseWithCommand(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& options,
    std::vector<std::string>* command, Given* given = nullptr);

// What --help prints: the usage, a newline, the options.
std::string Help(std::string_view usage,
                 const boost::program_options::options_description& options);

// Runs `body` and returns its exit code. A UsageError becomes one line
// "PREFIX: WHAT" on `err` and exit 2; any other exception the same line and
// exit 1. `prefix` is the program's name, with ": error" for the programs
// whose errors have always read so. Never throws.
int Run(std::string_view prefix, std::ostream& err,
        const std::function<int()>& body) noexcept;

// `options` as a Markdown table for the docs: "| option | meaning |", then
// a row per option, "`--name VALUE`, `-n`" and its description ('|'
// escaped), in the description's order.
std::string MarkdownTable(
    const boost::program_options::options_description& options);

// One subcommand of a program: `PROGRAM NAME SYNOPSIS  (SUMMARY)`.
struct Subcommand {
  std::string_view name;
  std::string_view synopsis;  // its arguments, "" for none
  std::string_view summary;   // a few words, "" for none
  // Runs it on the arguments after its name; returns the exit code.
  std::function<int(const std::vector<std::string>&)> run;
};

// "usage: PROGRAM NAME SYNOPSIS  (SUMMARY)\n", then "       PROGRAM ..."
// for each further subcommand, in the table's order.
std::string SubcommandUsage(std::string_view program,
                            std::span<const Subcommand> table);

// The subcommand `name` names, or null with `*why` set to one line:
// "unknown command 'X' (expected a, b or c)".
const Subcommand* FindSubcommand(std::span<const Subcommand> table,
                                 std::string_view name, std::string* why);

}  // namespace verbsemu::cli

#endif  // VERBSEMU_CLI_CLI_H_
