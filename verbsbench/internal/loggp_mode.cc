// loggp: Netgauge's LogGP method per message size. The three round trips
// give gap and o_s (loggp/formulas.h). d must exceed the gap g + (s-1)G:
// Netgauge takes PRTT(1,0,s), assuming a round trip outlasts a message's
// gap, which a link narrower than its latency breaks (under verbsemu's
// pacing at 100 Mbit/s, PRTT(1,0,4K) was 298 us and the gap 331 us); so d
// is also at least twice the gap just measured. o_r's settling time, the
// median PRTT(n,0,s), lets a whole train arrive before it is retired.
#include <algorithm>

#include "models/loggp/formulas.h"
#include "verbsbench/internal/modes.h"

namespace verbsbench::internal {
namespace {

double DefaultDelay(const Recorder& prtt_10, const Recorder& prtt_n0, int n) {
  const double one = prtt_10.histogram().Quantile(0.5);
  return std::max(one,
                  2 * loggp::Gap(prtt_n0.histogram().Quantile(0.5), one, n));
}

}  // namespace

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
    pt.delay_ns = o.loggp_delay_ns > 0
                      ? o.loggp_delay_ns
                      : DefaultDelay(pt.prtt_1_0, pt.prtt_n_0, n);
    pt.prtt_n_d = meas.Prtt(m, n, pt.delay_ns, pt.iterations, o.warmup);
    pt.o_r = meas.TrainRecvOverhead(m, n, pt.prtt_n_0.histogram().Quantile(0.5),
                                    pt.iterations, o.warmup);
    points.push_back(std::move(pt));
  }
  return points;
}

}  // namespace verbsbench::internal
