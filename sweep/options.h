// The options of `verbsemu sweep`, described once: its parser
// (ParseSweepArgs), its --help (SweepUsage) and the options table of
// docs/sweep.md (checked by options_test) all come from this description.
#ifndef VERBSEMU_SWEEP_OPTIONS_H_
#define VERBSEMU_SWEEP_OPTIONS_H_

#include <boost/program_options.hpp>
#include <string>

namespace verbsemu::sweep {

// Every option, in the order --help lists them. A value option keeps each
// value given (a std::vector<std::string>, the last one counts); a switch
// may be given more than once.
const boost::program_options::options_description& SweepOptions();

// The options table of docs/sweep.md, between its markers.
std::string SweepOptionsMarkdown();

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_OPTIONS_H_
