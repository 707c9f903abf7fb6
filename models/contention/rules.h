// The penalty rules of Martinasso & Mehaut (Euro-Par 2011, eq. 4) for a
// static contention graph on one InfiniBand switch. For edge e = (s, d):
//   rho(e) = delta+(s) + max over s's edges e' of k(e')
//   (a) k = 0 when e has no competitor at d (another source sending to d),
//       or delta-(d) <= delta+(s) and every competitor's source has
//       out-degree delta+(s);
//   (b) delta+(s) = 1 and every competitor's source has out-degree > 1:
//       rho(e) = 1 + 1 / (max over competitors e'' of rho(e'') - 1);
//   (c) otherwise k = sum over s's edges (s, d') of sum over their
//       competitors (s'', d') of 1 / delta+(s'')   (a node-level sum).
// (RuleWeights scales the (b) and (c) terms.)
// Rule (b) reads rho(e'') two ways, and the paper's figures need both:
// kNode takes the competitor's final penalty (Figs. 2 and 4),
// kEdge its per-edge penalty before the max, delta+(s'') + its own
// competitors' sum (Fig. 3). docs/contention.md has the details.
#ifndef VERBSEMU_MODELS_CONTENTION_RULES_H_
#define VERBSEMU_MODELS_CONTENTION_RULES_H_

#include <vector>

#include "models/contention/graph.h"

namespace verbsemu::contention {

enum class RuleB { kNode, kEdge };

// The rules' family (what `contentionfit fit` fits to measured penalties):
// rule (b)'s term 1 / (rho(e'') - 1) times b, rule (c)'s sum times c. The
// paper's rules are b = c = 1.
struct RuleWeights {
  double b = 1, c = 1;
};

// Penalty per edge (index as g.edges), each >= 1 for weights >= 0.
std::vector<double> Mm2011Penalties(const Graph& g, RuleB rule_b,
                                    RuleWeights w = {});

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_RULES_H_
