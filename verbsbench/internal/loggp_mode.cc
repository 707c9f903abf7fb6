// loggp: Netgauge's LogGP method per message size. The three round trips
// give gap and o_s (loggp/formulas.h); d defaults to the median PRTT(1,0,s),
// which Netgauge takes because it exceeds g + (s-1)G; o_r's settling time,
// the median PRTT(n,0,s), lets a whole train arrive before it is retired.
#include "verbsbench/internal/modes.h"

namespace verbsbench::internal {

std::vector<LoggpPoint> RunLoggp(Measurements& meas, const Options& o,
                                 std::ostream& progress) {
  const int n = o.loggp_n;
  std::vector<LoggpPoint> points;
  for (size_t size : o.sizes) {
    const Message m{Op::kSend, size, o.inline_modes.at(0)};
    progress << "loggp s=" << size << " n=" << n << "\n";
    LoggpPoint pt;
    pt.op = m.op;
    pt.size = size;
    pt.inline_used = meas.Inline(m);
    pt.iterations =
        IterationsFor(o, [&](uint64_t k) { return meas.Prtt(m, n, 0, k, 0); });
    pt.prtt_1_0 = meas.Prtt(m, 1, 0, pt.iterations, o.warmup);
    pt.prtt_n_0 = meas.Prtt(m, n, 0, pt.iterations, o.warmup);
    pt.delay_ns = o.loggp_delay_ns > 0 ? o.loggp_delay_ns
                                       : pt.prtt_1_0.histogram().Quantile(0.5);
    pt.prtt_n_d = meas.Prtt(m, n, pt.delay_ns, pt.iterations, o.warmup);
    pt.o_r = meas.TrainRecvOverhead(m, n, pt.prtt_n_0.histogram().Quantile(0.5),
                                    pt.iterations, o.warmup);
    points.push_back(std::move(pt));
  }
  return points;
}

}  // namespace verbsbench::internal
