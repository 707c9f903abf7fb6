// contentionfit: the contention model from the command line.
//   contentionfit predict GRAPH [--model M] [--sizes S[,S...]]
//                               [--starts T[,T...]] [--alpha A]
// prints each edge's end time and the step table (the paper's Fig. 3);
//   contentionfit invert GRAPH --times T,T,... [--model M] [--sizes S]
//                              [--alpha A] [--tolerance R]
// prints the first-step penalties of a measured static-synchronous graph.
// Errors are one "contentionfit: error: ..." line: exit 2 for usage, 1 for
// a bad graph or inconsistent times.
#ifndef VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_H_
#define VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_H_

#include <ostream>
#include <string>
#include <vector>

namespace verbsemu::contention {

// args: the command line without the program name. Never throws.
int RunContentionfit(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_CONTENTIONFIT_H_
