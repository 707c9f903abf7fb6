// Running gnuplot on a script file, for the programs that draw at once
// (the sweep runs it through its own executor, which logs and times out).
#ifndef VERBSEMU_PLOT_DRAW_H_
#define VERBSEMU_PLOT_DRAW_H_

#include <string>

namespace verbsemu::plot {

// Whether an executable `gnuplot` is on PATH.
bool GnuplotInstalled();

// Runs `gnuplot SCRIPT` (no shell), its output to SCRIPT.log, which is
// removed when empty. "" when it exited 0, else one line: "gnuplot failed
// on SCRIPT: " and the log's first three lines.
std::string Draw(const std::string& script);

}  // namespace verbsemu::plot

#endif  // VERBSEMU_PLOT_DRAW_H_
