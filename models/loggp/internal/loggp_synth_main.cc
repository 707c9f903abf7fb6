// loggp_synth: writes a synthetic verbsbench loggp run made from the LogGP
// parameters on its command line (internal/loggp_synth.h), for
// loggpfit_cli_test until a real test-bed run is checked in.
//   loggp_synth [os=NS] [or=NS] [L=NS] [n=N] [noise=F] [seed=N]
//               [sizes=LO:HI] seg=FIRST:g:G [seg=...]
// Exit 2 with one line on stderr on a bad argument.
#include <iostream>
#include <sstream>
#include <string>

#include "models/loggp/internal/loggp_synth.h"

namespace {

namespace synth = verbsemu::fit::synth;

// Reads "a:b[:c]" into doubles; false on anything else.
bool Split(const std::string& v, std::vector<double>& out, std::size_t want) {
  std::istringstream in(v);
  std::string part;
  while (std::getline(in, part, ':')) {
    try {
      std::size_t used = 0;
      out.push_back(std::stod(part, &used));
      if (used != part.size()) return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return out.size() == want;
}

bool Apply(const std::string& arg, synth::Truth& t, double& lo, double& hi) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos) return false;
  const std::string k = arg.substr(0, eq), v = arg.substr(eq + 1);
  std::vector<double> x;
  if (k == "seg" && Split(v, x, 3)) {
    t.segments.push_back({x[0], x[1], x[2]});
  } else if (k == "sizes" && Split(v, x, 2) && x[0] > 0 && x[1] >= x[0]) {
    lo = x[0], hi = x[1];
  } else if (Split(v, x, 1)) {
    if (k == "os")
      t.os = x[0];
    else if (k == "or")
      t.o_r = x[0];
    else if (k == "L")
      t.latency = x[0];
    else if (k == "noise")
      t.noise = x[0];
    else if (k == "n" && x[0] >= 2)
      t.n = static_cast<int>(x[0]);
    else if (k == "seed" && x[0] >= 0)
      t.seed = static_cast<unsigned>(x[0]);
    else
      return false;
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  synth::Truth truth;
  double lo = 1, hi = 65536;
  for (int i = 1; i < argc; ++i) {
    if (!Apply(argv[i], truth, lo, hi)) {
      std::cerr << "loggp_synth: error: bad argument '" << argv[i] << "'\n";
      return 2;
    }
  }
  if (truth.segments.empty()) {
    std::cerr << "loggp_synth: error: no seg=FIRST:g:G\n";
    return 2;
  }
  truth.sizes = synth::PowersOfTwo(lo, hi);
  std::cout << synth::Run(truth).dump(2) << "\n";
  return 0;
}
