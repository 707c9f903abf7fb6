// The LoP model's formulas (LoP §4.4, §4.7), written once for verbsbench's
// derived curves and lopfit's analysis.
#ifndef VERBSEMU_MODELS_LOP_FORMULAS_H_
#define VERBSEMU_MODELS_LOP_FORMULAS_H_

namespace verbsbench::lop {

// t_rtt(p) is the round per peer: a 1:n round of p messages (and their p
// replies) divided by p, the quantity LoP §4.7 measures and fits.
inline double PerPeer(double round, double p) { return round / p; }

// RTT2(p) is half of t_rtt(p): LoP §4.7 derives L from t_rtt/2.
inline double Rtt2(double rtt) { return rtt / 2; }

// How many send overheads a round of p posts costs beyond o_s(1): one
// o_s(p) for p single posts (overheads are per WR), p of them for a list.
inline double PostMultiplier(bool list, double p) { return list ? p : 1.0; }

// L(p) = RTT2(p) - (o_s(p) + o_s(1));
// L_list(p) = RTT2(p) - (p * o_s_list(p) + o_s(1)).
inline double Latency(double rtt2, double os_p, double os_1, double mult) {
  return rtt2 - (mult * os_p + os_1);
}

// Predicted round: t_1:n = o(n) + n L(n); t^list_1:n = n o(n) + n L(n).
inline double PredictedTime(double os_p, double l, double p, double mult) {
  return mult * os_p + p * l;
}

}  // namespace verbsbench::lop

#endif  // VERBSEMU_MODELS_LOP_FORMULAS_H_
