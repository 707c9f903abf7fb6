// `verbsbench compare [options] BASE.json NEW.json`: the command line over
// the comparison library (compare.h), and the regression gate's exit status.
#ifndef VERBSBENCH_COMPARE_CLI_H_
#define VERBSBENCH_COMPARE_CLI_H_

#include <ostream>

namespace verbsbench::compare {

// argv[0] is "compare". Returns 0 when every threshold holds (or none was
// given: report only), 1 when one is crossed (a line per crossing on `err`),
// 2 on bad usage, an unreadable or mismatched file, or a failed plot (one
// line on `err`).
int CompareMain(int argc, const char* const argv[], std::ostream& out,
                std::ostream& err);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_CLI_H_
