// `verbsemu sweep`: the command line around the sweep engine. The
// launcher's main() hands it the arguments after "sweep" and the path of
// libverbsemu.so; it returns the exit status (0 all valid, 1 a point
// invalid or runs failed, 2 bad input, 130 interrupted).
#ifndef VERBSEMU_SWEEP_CLI_H_
#define VERBSEMU_SWEEP_CLI_H_

#include <string>
#include <vector>

#include "sweep/executor.h"

namespace verbsemu::sweep {

struct CliContext {
  std::string lib_path;          // libverbsemu.so, absolute
  std::string current_preload;   // $LD_PRELOAD of the sweep itself
  Executor* executor = nullptr;  // runs the command (and gnuplot)
  bool terminal = false;         // stderr is a terminal: a progress bar
};

int SweepMain(const std::vector<std::string>& args, const CliContext& ctx);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_CLI_H_
