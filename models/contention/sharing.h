// Two mechanistic sharing models of a one-switch fabric, as penalties
// (rho = single-transfer rate / rate in the graph, every edge backlogged).
// Each port has an egress link (what it sends) and an ingress link (what
// it receives), full duplex, capacity 1.
#ifndef VERBSEMU_MODELS_CONTENTION_SHARING_H_
#define VERBSEMU_MODELS_CONTENTION_SHARING_H_

#include <vector>

#include "models/contention/graph.h"

namespace verbsemu::contention {

// Max-min fair rates by progressive filling over egress and ingress links.
std::vector<double> MaxMinPenalties(const Graph& g);

// "ib-hol": each source NIC serves its edges round robin, one chunk at a
// time; the head chunk waits for the destination's ingress link, which
// serves chunks first come first served (head-of-line blocking: a
// caricature of credit-based back-pressure). Simulated in chunk times for
// `horizon` chunk times; rho = horizon / chunks delivered per edge.
inline constexpr double kHolHorizon = 20000.0;
std::vector<double> IbHolPenalties(const Graph& g,
                                   double horizon = kHolHorizon);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_SHARING_H_
