// The paper's rules as a family (rules.h RuleWeights): the weights of rule
// (b) and rule (c) fitted to measured first-step penalties, for each
// reading of rule (b). On a fabric the rules describe, both come out near
// 1; the paper's rules are the weights (1, 1).
#ifndef VERBSEMU_MODELS_CONTENTION_RULE_FIT_H_
#define VERBSEMU_MODELS_CONTENTION_RULE_FIT_H_

#include <span>
#include <vector>

#include "models/contention/graph.h"
#include "models/contention/rules.h"

namespace verbsemu::contention {

// A weight and its 95% interval; n is the number of measured penalties it
// enters (0: none, not determined, left at 1). A weight fitted at a bound
// of its range [0, 10], or whose interval the fit cannot give, has none:
// low and high are NaN.
struct Weight {
  double value = 1, low = 1, high = 1;
  int n = 0;
  bool has_interval() const { return low == low && high == high; }
};

struct RuleFit {
  RuleB reading = RuleB::kNode;
  int n = 0;  // penalties fitted
  Weight b, c;
  // Root mean square of log(rho_measured / rho_rules): at the fitted
  // weights, and at the paper's (1, 1).
  double rms_log_err = 0, rms_log_err_paper = 0;
  double aicc = 0;  // of the fitted weights (weighted residuals, k free)
};

// A measured first-step penalty of one edge of a graph (which must outlive
// the fit), with its 95% interval's half-width relative to it.
struct MeasuredPenalty {
  const Graph* graph = nullptr;
  int edge = 0;
  double rho = 1, rel_halfwidth = 0;
};

// Fits b and c, for each reading (node first), by weighted least squares on
// log rho (weights: 1 / the relative half-width squared, at least 1%).
// Empty when there is no penalty.
std::vector<RuleFit> FitRuleWeights(std::span<const MeasuredPenalty> measured);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_RULE_FIT_H_
