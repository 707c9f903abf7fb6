// The overlay data of `verbsbench compare` (plot --compare): per matched
// point, both runs' PDF and CDF on the comparison's shared bins, from the
// comparison library, so the plot shows what the distances were computed on.
#ifndef VERBSEMU_TOOLS_PLOT_COMPARE_DAT_H_
#define VERBSEMU_TOOLS_PLOT_COMPARE_DAT_H_

#include <string>

#include "verbsbench/compare/compare.h"

namespace verbsemu::plot {

// Writes <dir>/compare_<point>.dat (columns: lo_ns hi_ns mid_ns base_pdf
// new_pdf base_cdf new_cdf; pdf per ns, cdf at hi_ns) per point, and
// <dir>/compare.tsv (name, file, base and new samples, KS, Wasserstein-1 in
// ns, the distances' source, the point). Throws std::runtime_error on I/O
// failure.
void WriteCompareDats(const std::string& dir,
                      const verbsbench::compare::Comparison& c);

}  // namespace verbsemu::plot

#endif  // VERBSEMU_TOOLS_PLOT_COMPARE_DAT_H_
