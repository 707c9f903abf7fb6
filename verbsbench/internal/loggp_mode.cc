// loggp: Netgauge's LogGP method per message size. The three round trips
// give gap and o_s (loggp/formulas.h). d must exceed the gap g + (s-1)G:
// Netgauge takes PRTT(1,0,s), assuming a round trip outlasts a message's
// gap, which a link narrower than its latency breaks (under verbsemu's
// pacing at 100 Mbit/s, PRTT(1,0,4K) was 298 us and the gap 331 us); so d
// is also at least twice the gap just measured. o_r's settling time, the
// median PRTT(n,0,s), lets a whole train arrive before it is retired.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/loggp/contract.h"
#include "models/loggp/derive.h"
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

// A train needs n sends and n receives in flight, and a receive per message
// (o_r).
void CheckLoggp(const Options& o) {
  if (o.ops != std::vector<Op>{Op::kSend}) {
    throw std::invalid_argument(
        "loggp measures send/recv only (o_r is the receive's overhead)");
  }
  if (o.inline_modes.size() != 1) {
    throw std::invalid_argument("loggp takes one --inline mode (on or off)");
  }
  const int most = static_cast<int>(std::min(o.sq_depth, o.rq_depth / 2));
  if (o.loggp_n < 2 || o.loggp_n > most) {
    throw std::invalid_argument("--loggp-n must be 2.." + std::to_string(most) +
                                " (the send queue and half the receive "
                                "queue hold a train)");
  }
  if (!(o.loggp_delay_ns >= 0)) {
    throw std::invalid_argument("--loggp-delay must be >= 0");
  }
}

// Each size's entries and the values derived from them, and the
// definitions.
void LoggpJson(const Result& r, nlohmann::json& run) {
  const Options& o = r.options;
  nlohmann::json out = {{loggp::key::kN, o.loggp_n},
                        {loggp::kPoints, nlohmann::json::array()}};
  for (const LoggpPoint& pt : r.loggp) {
    nlohmann::json j = {{loggp::key::kOp, Name(pt.op)},
                        {loggp::key::kSize, pt.size},
                        {loggp::key::kInline, pt.inline_used},
                        {"iterations", pt.iterations},
                        {loggp::key::kDelayNs, pt.delay_ns},
                        {loggp::key::kPrtt10, StatJson(pt.prtt_1_0, o)},
                        {loggp::key::kPrttN0, StatJson(pt.prtt_n_0, o)},
                        {loggp::key::kPrttNd, StatJson(pt.prtt_n_d, o)},
                        {loggp::key::kOr, StatJson(pt.o_r, o)}};
    j[loggp::key::kDerived] = loggp::DerivePoint(j, o.loggp_n);
    out[loggp::kPoints].push_back(std::move(j));
  }
  out[loggp::kDefinitions] = loggp::Definitions();
  run[loggp::kSection] = std::move(out);
}

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
