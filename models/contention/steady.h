// Penalties read from rates while every edge of a graph runs: the
// cross-check `verbsbench contend --steady` makes possible by recording
// each WR's completion at its sender (contend_data.h "completions_ns"). In
// each run of a graph whose edges all start at once, the window from the
// latest first post to the earliest last completion, less `trim` of it at
// each side, is a stretch in which every edge runs and none has ended: the
// first step of the paper's model. An edge's rate there is the
// least-squares slope of its bytes completed against time; its penalty is
// a lone edge's rate (the one-edge graphs' runs, read the same way over
// their whole transfer) over it. No inversion and no model of the later
// steps: what the inverted first-step penalties and each model's are
// checked against.
#ifndef VERBSEMU_MODELS_CONTENTION_STEADY_H_
#define VERBSEMU_MODELS_CONTENTION_STEADY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/contention/contend_data.h"
#include "models/contention/interval.h"

namespace verbsemu::contention {

struct SteadyOptions {
  double trim = 0.1;   // of the window, cut at each side: [0, 0.5)
  int min_points = 4;  // completions in the window a slope needs
};

struct SteadyPenalty {
  int graph = 0, edge = 0;
  Interval rho;          // over the runs that gave a rate
  int runs_without = 0;  // runs with too few completions in the window
};

struct SteadyResult {
  Interval alone_Bps;  // a lone edge's rate (n == 0: none recorded)
  std::vector<SteadyPenalty> penalties;
  std::vector<std::string> notes;  // graphs with none, and why
};

// Bytes per second of an edge's completions within [lo_ns, hi_ns], the
// k-th completion (from 1) having carried min(k * wr_size, bytes) in all:
// the least-squares slope; nullopt with fewer than min_points or no spread
// in time.
std::optional<double> CompletionRate(
    const std::vector<std::int64_t>& completions_ns, std::int64_t wr_size,
    std::int64_t bytes, double lo_ns, double hi_ns, int min_points);

// Nothing (alone_Bps.n == 0, no penalty) when no run recorded completions.
// Throws std::invalid_argument for options out of range.
SteadyResult SteadyPenalties(const ContendData& d, const SteadyOptions& o = {});

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_STEADY_H_
