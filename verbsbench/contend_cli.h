// `verbsbench contend`'s command line (docs/verbsbench.md, "contend"):
// parsed into the rendezvous options and the contend options, then run.
#ifndef VERBSBENCH_CONTEND_CLI_H_
#define VERBSBENCH_CONTEND_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "verbsbench/internal/contend_mode.h"
#include "verbsbench/options.h"

namespace verbsbench {

struct ContendCommandLine {
  Options team;  // rendezvous and device
  internal::ContendOptions contend;
  std::string json;  // --json FILE ("-": stdout)
  std::string csv;   // --csv FILE ("-": stdout)
  bool quiet = false;
  bool help = false;
  std::string help_text;
};

// The arguments after "contend". Throws std::invalid_argument with one
// line (a graph that does not parse, a size or count out of range).
ContendCommandLine ParseContendCommandLine(
    const std::vector<std::string>& args);

// Exit 0, 1 (the run failed) or 2 (bad usage); errors one line on `err`.
int ContendMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

}  // namespace verbsbench

#endif  // VERBSBENCH_CONTEND_CLI_H_
