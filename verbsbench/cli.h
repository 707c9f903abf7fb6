// Command line of //verbsbench:verbsbench (Boost.Program_options).
#ifndef VERBSBENCH_CLI_H_
#define VERBSBENCH_CLI_H_

#include <stdexcept>
#include <string>

#include "verbsbench/options.h"

namespace verbsbench {

struct OutputFiles {
  std::string json;
  std::string csv;
  std::string histogram;
  std::string raw;
  bool quiet = false;
};

struct CommandLine {
  Options options;
  OutputFiles outputs;
  bool help = false;
  std::string help_text;
};

// Throws std::invalid_argument with a one-line message on bad input.
CommandLine ParseCommandLine(int argc, const char* const argv[]);

// Runs the CLI: returns the process exit status (0 ok, 1 run failed,
// 2 bad usage). Errors are one line on `err`.
int CliMain(int argc, const char* const argv[], std::ostream& out,
            std::ostream& err);

}  // namespace verbsbench

#endif  // VERBSBENCH_CLI_H_
