// contentionfit: the contention model from the command line.
//   contentionfit predict GRAPH [--model M] [--sizes S[,S...]]
//                               [--starts T[,T...]] [--alpha A]
// prints each edge's end time and the step table (the paper's Fig. 3);
//   contentionfit invert GRAPH --times T,T,... [--model M] [--sizes S]
//                              [--alpha A] [--tolerance R]
// prints the first-step penalties of a measured static-synchronous graph;
//   contentionfit fit RUN.json [--models M,M] [--model M] [--json F]
// fits a measurement (contend_data.h): alpha, the models by AICc, the
// measured penalties with intervals;
//   contentionfit export RUN.json --out F [--model M]
// writes the penalties file (penalty_file.h);
//   contentionfit synth --model M [--seed N] [--out F]
// writes a synthetic measurement made by a model.
// Errors are one "contentionfit: error: ..." line: exit 2 for usage, 1 for
// a bad graph, measurement or inconsistent times.
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
