// lat: 1:1 round trips over every op, inline mode and size.
#include <algorithm>

#include "verbsbench/internal/modes.h"

namespace verbsbench::internal {

uint64_t IterationsFor(const Options& o,
                       const std::function<Recorder(uint64_t)>& pilot) {
  if (o.duration_s <= 0) return o.iters;
  // Duration runs: a short pilot estimates the time per iteration; the count
  // then goes to the peers, which follow exact counts.
  const Recorder r =
      pilot(std::min<uint64_t>(100, std::max<uint64_t>(10, o.iters)));
  const double per_iter = std::max(1.0, r.histogram().mean());
  return std::clamp<uint64_t>(
      static_cast<uint64_t>(o.duration_s * 1e9 / per_iter), 1,
      2'000'000'000ull);
}

bool SkipInline(Op op, bool inl, const Options& o) {
  return op == Op::kRead && inl && o.inline_modes.size() > 1;
}

void ForEachMessage(const Options& o,
                    const std::function<void(const Message&)>& point) {
  for (Op op : o.ops) {
    for (bool inl : o.inline_modes) {
      if (SkipInline(op, inl, o)) continue;
      for (size_t size : o.sizes) point(Message{op, size, inl});
    }
  }
}

std::vector<LatPoint> RunLat(Measurements& meas, const Options& o,
                             std::ostream& progress) {
  std::vector<LatPoint> results;
  ForEachMessage(o, [&](const Message& m) {
    const double divisor = m.op == Op::kRead ? 1.0 : 2.0;
    const uint64_t iters = IterationsFor(
        o, [&](uint64_t n) { return meas.RoundTrip1n(1, m, n, 0, divisor); });
    const bool used = meas.Inline(m);
    progress << "lat " << Name(m.op) << (used ? " inline" : "") << " size "
             << m.size << " iters " << iters << "\n";
    results.push_back({m.op, m.size, used, m.inl, iters,
                       meas.RoundTrip1n(1, m, iters, o.warmup, divisor)});
  });
  return results;
}

void LatJson(const Result& r, nlohmann::json& run) {
  run["results"] = nlohmann::json::array();
  for (const LatPoint& pt : r.lat) {
    nlohmann::json j = MeasuredJson(pt.op, pt.size, pt.inline_used,
                                    pt.iterations, pt.recorder, r.options);
    j["inline_requested"] = pt.inline_requested;
    j["metric"] = pt.op == Op::kRead ? "rtt" : "rtt/2";
    run["results"].push_back(std::move(j));
  }
}

}  // namespace verbsbench::internal
