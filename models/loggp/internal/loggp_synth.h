// Synthetic verbsbench loggp runs from known LogGP parameters, by the model
// of models/loggp/formulas.h, for loggpfit's tests. Not data: every
// value is made from the truth given here, with optional Gaussian noise.
#ifndef VERBSEMU_MODELS_LOGGP_INTERNAL_LOGGP_SYNTH_H_
#define VERBSEMU_MODELS_LOGGP_INTERNAL_LOGGP_SYNTH_H_

#include <nlohmann/json.hpp>
#include <vector>

namespace verbsemu::fit::synth {

// g and G from first_size on (up to the next segment's first_size).
struct TrueSegment {
  double first_size = 1, g = 1500, big_g = 0.5;
};

struct Truth {
  double os = 900, o_r = 300, latency = 2000;
  int n = 16;
  std::vector<double> sizes;          // increasing
  std::vector<TrueSegment> segments;  // by first_size, the first at <= sizes[0]
  double noise = 0;  // relative standard deviation of each measured value
  unsigned seed = 1;

  const TrueSegment& SegmentOf(double size) const;
  // g + (s-1)G of the size's segment, and the train's max(o_s, it).
  double TrueGap(double size) const;
  double TrainGap(double size) const;
  // PRTT(1,0,s)/2 - o_s - o_r - (s-1)G = L.
  double Prtt10(double size) const;
};

// Sizes lo, 2lo, 4lo, ... up to hi.
std::vector<double> PowersOfTwo(double lo, double hi);

// A whole run document, as `verbsbench loggp --json` writes it: median_ns
// is the model's value with noise, min_ns 1% below it.
nlohmann::json Run(const Truth& truth);

}  // namespace verbsemu::fit::synth

#endif  // VERBSEMU_MODELS_LOGGP_INTERNAL_LOGGP_SYNTH_H_
