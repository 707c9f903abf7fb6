// contentionfit's commands on measurement files (contend_data.h): fit,
// export, synth and compare. Internal to contentionfit: the command line is
// parsed in contentionfit.cc (one function), which calls these.
#ifndef VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_DATA_H_
#define VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_DATA_H_

#include <ostream>
#include <stdexcept>
#include <string>

#include "cli/cli.h"
#include "models/contention/fit.h"
#include "models/contention/synth.h"

namespace verbsemu::contention {

// A mistake on the command line: exit 2.
using UsageError = cli::UsageError;
// Input the model cannot take (a graph, a file, times): exit 1.
struct DataError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct DataRequest {
  std::string file;      // fit, export: the measurement
  FitOptions fit;        // fit, export
  std::string json_out;  // fit: also write the result here
  std::string model;     // export: the file's model ("": the best)
  std::string out;       // export (required), synth ("": stdout)
  SynthOptions synth;    // synth
  std::string other;     // compare: the measurement set against `file`
  double expect = 0;     // compare: the ratio every edge should have (0: none)
  double within = 0.04;  // compare: how far from `expect` a ratio may be
};

void RunFit(const DataRequest& r, std::ostream& out);
void RunExport(const DataRequest& r, std::ostream& out);
void RunSynth(const DataRequest& r, std::ostream& out);
// Exit status: 1 when `expect` is set and some edge's ratio is outside it.
int RunCompare(const DataRequest& r, std::ostream& out);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_DATA_H_
