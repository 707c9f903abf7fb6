// bw: streams over every op, inline mode and size.
#include <algorithm>

#include "verbsbench/internal/modes.h"

namespace verbsbench::internal {
namespace {

// Messages per point: --iters, or with --duration what a pilot stream says
// fills it; otherwise a warm-up stream first.
uint64_t StreamCount(Measurements& meas, const Message& m, bool bidir,
                     const Options& o) {
  if (o.duration_s > 0) {
    const uint64_t pilot_count = std::min<uint64_t>(o.iters, 1000);
    Recorder pilot;
    const double per_msg =
        meas.Stream(m, pilot_count, bidir, pilot).elapsed_ns /
        static_cast<double>(pilot_count);
    return std::clamp<uint64_t>(
        static_cast<uint64_t>(o.duration_s * 1e9 / std::max(1.0, per_msg)), 1,
        2'000'000'000ull);
  }
  if (o.warmup > 0) {
    Recorder warm;
    meas.Stream(m, std::min<uint64_t>(o.warmup, o.iters), bidir, warm);
  }
  return o.iters;
}

}  // namespace

std::vector<BwPoint> RunBw(Measurements& meas, const Options& o,
                           std::ostream& progress) {
  std::vector<BwPoint> results;
  ForEachMessage(o, [&](const Message& m) {
    const bool bidir = o.bidirectional && m.op != Op::kRead;
    const uint64_t count = StreamCount(meas, m, bidir, o);
    const bool used = meas.Inline(m);
    progress << "bw " << Name(m.op) << (used ? " inline" : "") << " size "
             << m.size << " msgs " << count << "\n";
    BwPoint r{m.op,  m.size, used, count,
              bidir, 0,      0,    Recorder(o.cycle, o.raw_limit)};
    const StreamTimes t = meas.Stream(m, count, bidir, r.recorder);
    r.elapsed_ns = t.elapsed_ns;
    r.peer_elapsed_ns = t.peer_elapsed_ns;
    results.push_back(std::move(r));
  });
  return results;
}

void BwJson(const Result& r, nlohmann::json& run) {
  run["results"] = nlohmann::json::array();
  for (const BwPoint& pt : r.bw) {
    const double ns = pt.elapsed_ns;
    const double ways = pt.bidirectional ? 2 : 1;
    const double bytes = static_cast<double>(pt.iterations) *
                         static_cast<double>(pt.size) * ways;
    nlohmann::json j = MeasuredJson(pt.op, pt.size, pt.inline_used,
                                    pt.iterations, pt.recorder, r.options);
    j["bidirectional"] = pt.bidirectional;
    j["elapsed_ns"] = ns;
    if (pt.bidirectional) j["peer_elapsed_ns"] = pt.peer_elapsed_ns;
    j["bw_MiBps"] = bytes / (ns / 1e9) / (1 << 20);
    j["bw_Gbps"] = bytes * 8 / ns;
    j["msg_rate_Mpps"] = static_cast<double>(pt.iterations) * ways / (ns / 1e3);
    j["metric"] = "per-message completion interval (batch share)";
    run["results"].push_back(std::move(j));
  }
}

}  // namespace verbsbench::internal
