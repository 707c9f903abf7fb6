// The command line lopfit and loggpfit share: OPTIONS and one INPUT file;
// every error is one "TOOL: error: ..." line on stderr, exit 2 for usage,
// 1 for bad input. Built on //cli, the command line of every program.
#ifndef VERBSEMU_MODELS_FIT_CLI_H_
#define VERBSEMU_MODELS_FIT_CLI_H_

#include <boost/program_options.hpp>
#include <functional>

#include "cli/cli.h"

namespace verbsemu::fit {

// A bad option value: exit 2.
using UsageError = cli::UsageError;

struct InputTool {
  const char* name = "";   // "lopfit"
  const char* usage = "";  // "usage: lopfit [options] INPUT.json"
  boost::program_options::options_description options;
  // Reads vm (its "input" is set), runs and returns the exit code; throws
  // UsageError for a bad option, anything else for bad input.
  std::function<int(const boost::program_options::variables_map&)> run;
};

// Parses argv (--help prints the usage and options, --version the
// version, exit 0), then runs.
// Never throws.
int RunInputTool(int argc, char** argv, const InputTool& tool);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_FIT_CLI_H_
