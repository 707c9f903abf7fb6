// Synthetic contention measurements: what `verbsbench contend` would
// record on a fabric that follows a penalty model exactly, with noise.
// For trying contentionfit fit and export without hardware, and for the
// fit's tests (the fit must find the model that made the data).
#ifndef VERBSEMU_MODELS_CONTENTION_SYNTH_H_
#define VERBSEMU_MODELS_CONTENTION_SYNTH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/contention/contend_data.h"
#include "models/contention/fit.h"
#include "models/contention/models.h"

namespace verbsemu::contention {

struct SynthOptions {
  const Model* model = nullptr;   // required
  double port_rate_Bps = 262144;  // 1 / alpha
  std::int64_t bytes = 524288;    // per edge
  int reps = 5;                   // runs per graph, one block each
  double noise = 0.01;            // relative (log-normal) noise per time
  std::uint64_t seed = 1;
  std::vector<std::string> graphs;  // empty: SynthGraphs()
  PenaltyCache* cache = nullptr;    // the model's penalties, shared
  // > 0: each WR's completion is recorded too (completions_ns, as
  // `verbsbench contend --steady` does), at the model's rate in each step.
  std::int64_t wr_size = 0;
};

// The default set: one edge (calibration), every shape with two edges,
// the paper's Figs. 2-4 and a few graphs of 4-6 edges, on at most 8
// vertices labelled a..h.
std::vector<std::string> SynthGraphs();

// Every graph static-synchronous; each edge's end time is the model's
// times a log-normal factor exp(noise * N(0, 1)), independent per edge and
// run (its completions, with wr_size, scaled by the same factor). Throws
// std::invalid_argument for a bad option or graph.
ContendData Synthesize(const SynthOptions& o);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_SYNTH_H_
