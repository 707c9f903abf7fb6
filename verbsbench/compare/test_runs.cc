#include "verbsbench/compare/test_runs.h"

#include <cmath>
#include <random>

#include "verbsbench/mode.h"
#include "verbsbench/result.h"

namespace verbsbench::compare::test_runs {
namespace {

constexpr uint64_t kRawLimit = 1 << 20;

Recorder Record(const std::vector<double>& samples, bool keep_raw) {
  Recorder r(1000, keep_raw ? kRawLimit : 0);
  for (double v : samples) r.Add(v);
  return r;
}

Options RunOptions(Mode mode, bool keep_raw) {
  Options o;
  o.mode = mode;
  o.raw_limit = keep_raw ? kRawLimit : 0;
  return o;
}

}  // namespace

std::vector<double> LogNormal(double median_ns, int n, uint64_t seed,
                              double shift_ns) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median_ns), 0.1);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(d(rng) + shift_ns);
  return out;
}

nlohmann::json RunJson(Mode mode, const std::vector<PointSpec>& points,
                       bool keep_raw) {
  Result r;
  r.options = RunOptions(mode, keep_raw);
  for (const PointSpec& p : points) {
    const uint64_t n = p.samples.size();
    if (mode == Mode::kBw) {
      double elapsed = 0;
      for (double v : p.samples) elapsed += v;
      r.bw.push_back({p.op, p.size, p.is_inline, n, false, elapsed, 0,
                      Record(p.samples, keep_raw)});
    } else {
      r.lat.push_back({p.op, p.size, p.is_inline, p.is_inline, n,
                       Record(p.samples, keep_raw)});
    }
  }
  return ToJson(r);
}

nlohmann::json LopRunJson(const std::vector<std::vector<double>>& per_p,
                          bool keep_raw) {
  Result r;
  r.options = RunOptions(Mode::kLop, keep_raw);
  LopCurve c;
  c.name = "rtt2_1n_send_inline";
  c.kind = lop::Kind::kRtt;
  c.pattern = "1:n";
  c.op = "send";
  c.is_inline = true;
  for (size_t i = 0; i < per_p.size(); ++i) {
    c.points.push_back({static_cast<int>(i + 1), Record(per_p[i], keep_raw)});
  }
  r.lop.push_back(std::move(c));
  return ToJson(r);
}

}  // namespace verbsbench::compare::test_runs
