#include "verbsbench/result.h"

namespace verbsbench {

using nlohmann::json;
namespace key = lop::key;

json MeasuredJson(Op op, size_t size, bool inline_used, uint64_t iterations,
                  const Recorder& rec, const Options& o) {
  json j = {{"stats", StatsJson(rec, {.mode_resolution = o.mode_resolution})},
            {"op", Name(op)},
            {"size", size},
            {"inline", inline_used},
            {"iterations", iterations}};
  if (o.raw_limit > 0) j["raw_ns"] = rec.raw();
  return j;
}

json StatJson(const Recorder& rec, const Options& o) {
  const LogHistogram& h = rec.histogram();
  json j = {
      {key::kMinNs, h.min()},
      {key::kMedianNs, h.Quantile(0.5)},
      {key::kMeanNs, h.mean()},
      {key::kP99Ns, h.Quantile(0.99)},
      {key::kSamples, h.count()},
      {key::kStats, StatsJson(rec, {.mode_resolution = o.mode_resolution})}};
  if (o.raw_limit > 0) j[key::kRawNs] = rec.raw();
  return j;
}

}  // namespace verbsbench
