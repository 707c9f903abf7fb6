// Fitting a contention measurement (contend_data.h): alpha, the measured
// first-step penalties with 95% intervals, and the penalty models compared
// by AICc on the measured times, as the paper's Fig. 5 compares models.
#ifndef VERBSEMU_MODELS_CONTENTION_FIT_H_
#define VERBSEMU_MODELS_CONTENTION_FIT_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/contention/contend_data.h"
#include "models/contention/interval.h"
#include "models/contention/models.h"
#include "models/contention/rule_fit.h"
#include "models/contention/solver.h"
#include "models/contention/steady.h"

namespace verbsemu::contention {

// The paper's Fig. 5 for one model: graphs with `edges` edges.
struct GroupScore {
  int edges = 0, graphs = 0, transfers = 0;
  double max_graph_mean_err = 0;  // max over graphs of the mean |err|
  double max_err = 0;             // max |err| over the group's transfers
  int transfers_within15 = 0;     // transfers with |err| <= 15%
};

// Penalties against others: how many, |rho / rho_other - 1| median and
// max, and the share within 3%.
struct PenaltyErrors {
  int n = 0;
  double median = 0, max = 0, within3 = 0;
};

// A model's account of every measured time: err = T_meas / T_pred - 1 per
// edge and run; Gaussian log residuals, k = 2 parameters (alpha, sigma).
struct ModelScore {
  std::string_view name;
  int n = 0;
  double rss = 0;  // sum of log(T_meas / T_pred)^2
  double aicc = 0, delta_aicc = 0;
  double median_err = 0, max_err = 0, within15 = 0;  // |err|; share <= 15%
  std::vector<GroupScore> groups;                    // by edge count
  // Per edge, the median of its runs' times against the prediction: how
  // many edges, and the median, 95th percentile and largest |err|.
  int edges = 0;
  double edge_median_err = 0, edge_p95_err = 0, edge_max_err = 0;
  // The unflagged first-step penalties (FitResult::penalties) against the
  // model's: how many, |rho1 / rho_model - 1| median and max, and the share
  // within 4%.
  int penalties = 0;
  double penalty_median_err = 0, penalty_max_err = 0, penalties_within4 = 0;
  // The steady penalties (FitResult::steady) against the model's.
  PenaltyErrors steady;
};

// One edge's first-step penalty, inverted run by run.
struct EdgePenalty {
  int graph = 0, edge = 0;
  Interval rho1;
  double amplification = 0;  // bytes / mean bytes moved in the first step
  int inconsistent = 0;      // runs the model could not invert
  std::string flag;          // "" or why the penalty is poorly determined
};

// A model's penalties by shape (canonical form): they depend on the shape
// only, and ib-hol's cost a simulation each. Shared between fits of the
// same graphs, it saves recomputing them. Not thread-safe.
class PenaltyCache {
 public:
  std::vector<double> Get(const Model& m, const Graph& g);
  Penalties Of(const Model& m);  // a view that lives as long as the cache

 private:
  std::map<std::pair<std::string, std::string>, std::vector<double>> memo_;
};

struct FitOptions {
  std::vector<std::string> models;  // empty: every model
  std::string later_model;          // inversion's later steps; "": the best
  double tolerance = 0.02;          // relative spread of one end group
  double max_amplification = 2;     // above: flagged
  // Above this interval half-width / value: flagged.
  double max_rel_halfwidth = 0.05;
  PenaltyCache* cache = nullptr;  // nullptr: one for this fit
};

struct FitResult {
  Interval alpha;                  // seconds per byte, from one-edge graphs
  std::vector<ModelScore> models;  // best (least AICc) first
  std::string later_model;         // the model of the inversion's later steps
  std::int64_t penalty_bytes = 0;  // size of the inverted graphs
  std::vector<EdgePenalty> penalties;
  // The rules' weights fitted to the penalties with no flag (rule_fit.h).
  std::vector<RuleFit> rule_weights;
  std::vector<std::string> notes;  // graphs not inverted, and why
  // Read from rates while every edge ran (steady.h; a measurement made
  // with --steady), and against the inverted penalties with no flag.
  SteadyResult steady;
  PenaltyErrors steady_vs_inverted;
};

// Throws std::invalid_argument with one line: no one-edge graph to take
// alpha from, an unknown model, a bad option.
FitResult Fit(const ContendData& d, const FitOptions& o);

// T_meas of an edge in a run: its receiver's end after its planned start.
double MeasuredSeconds(const MeasuredGraph& g, int run, int edge);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_FIT_H_
