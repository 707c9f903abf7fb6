// LogGP from Netgauge's parametrized round trips (Hoefler, Lichei, Rehm,
// "Low-Overhead LogGP Parameter Assessment for Modern Interconnection
// Networks", IPDPS 2007), written once for verbsbench's derived values and
// loggpfit. PRTT(n, d, s): the client sends n messages of s bytes, waiting
// d between a post's return and the next post; the server answers the n-th
// with one message of s bytes; the client times the whole.
//   PRTT(1,0,s) = 2 (o_s + L + (s-1) G + o_r)
//   PRTT(n,0,s) = PRTT(1,0,s) + (n-1) max(o_s, g + (s-1) G)
//   PRTT(n,d,s) = PRTT(1,0,s) + (n-1) (o_s + d)   when d >= g + (s-1) G
#ifndef VERBSEMU_MODELS_LOGGP_FORMULAS_H_
#define VERBSEMU_MODELS_LOGGP_FORMULAS_H_

namespace verbsbench::loggp {

// Per-message time of a back-to-back train: max(o_s, g + (s-1) G).
inline double Gap(double prtt_n0, double prtt_10, int n) {
  return (prtt_n0 - prtt_10) / (n - 1);
}

// o_s from the delayed train: each message beyond the first adds o_s + d.
inline double SendOverhead(double prtt_nd, double prtt_10, int n,
                           double delay) {
  return (prtt_nd - prtt_10) / (n - 1) - delay;
}

// LogGP's per-message gap for s bytes.
inline double GapModel(double g, double big_g, double size) {
  return g + (size - 1) * big_g;
}

// L = PRTT(1,0,s)/2 - o_s - o_r - (s-1) G.
inline double Latency(double half_rtt, double os, double o_r, double size,
                      double big_g) {
  return half_rtt - os - o_r - (size - 1) * big_g;
}

// A train whose per-message time is within this fraction of o_s was paced
// by the sender's CPU: it bounds g + (s-1) G from above, it does not
// measure it.
inline constexpr double kSenderBoundTolerance = 0.1;
inline bool SenderBound(double gap, double os) {
  return gap <= os * (1 + kSenderBoundTolerance);
}

}  // namespace verbsbench::loggp

#endif  // VERBSEMU_MODELS_LOGGP_FORMULAS_H_
