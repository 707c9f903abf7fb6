// lopfit's renderings of a LopAnalysis: the text report, the JSON document
// and the gnuplot data files tools/plot draws.
#ifndef VERBSEMU_MODELS_LOP_LOP_REPORT_H_
#define VERBSEMU_MODELS_LOP_LOP_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "models/lop/lop_analysis.h"

namespace verbsemu::fit {

void PrintText(std::ostream& out, const LopAnalysis& a);
nlohmann::json ToJson(const LopAnalysis& a);
// Writes <curve>.dat, <curve>.fit.dat (chosen fit and LogP member),
// derived_L_<rtt>.dat / derived_Llist_<rtt>.dat and an index curves.tsv
// (type, name, data file, fit file, label) for tools/plot. Creates
// dir. Throws LopInputError on I/O failure.
void WriteGnuplotDir(const std::string& dir, const LopAnalysis& a);

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOP_LOP_REPORT_H_
