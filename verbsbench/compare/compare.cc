#include "verbsbench/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace verbsbench::compare {
namespace {

struct QuantileDef {
  const char* name;
  double q;  // fraction below; the mean has none
};
constexpr QuantileDef kQuantiles[] = {
    {"min", 0.0},  {"p1", 0.01},    {"p5", 0.05},  {"p25", 0.25},
    {"p50", 0.50}, {"p75", 0.75},   {"p90", 0.90}, {"p95", 0.95},
    {"p99", 0.99}, {"p999", 0.999}, {"max", 1.0},  {"mean", -1.0}};

// Nearest rank, as the run's histogram defines its quantiles: the value of
// rank ceil(q n), 1-based.
double RankValue(const std::vector<double>& sorted, double q) {
  const double n = static_cast<double>(sorted.size());
  const double rank = std::clamp(std::ceil(q * n), 1.0, n);
  return sorted[static_cast<size_t>(rank) - 1];
}

double RawQuantile(const std::vector<double>& sorted, const QuantileDef& d) {
  if (d.q >= 0) return RankValue(sorted, d.q);
  return std::accumulate(sorted.begin(), sorted.end(), 0.0) /
         static_cast<double>(sorted.size());
}

double BinsQuantile(const SharedBins& s, int run, const QuantileDef& d) {
  if (d.q >= 0) return SharedQuantile(s, run, d.q);
  double mean = 0;
  const std::vector<double>& mass = s.mass[static_cast<size_t>(run)];
  for (size_t i = 0; i < s.intervals(); ++i) {
    mean += mass[i] * (s.edges[i] + s.edges[i + 1]) / 2;
  }
  return mean;
}

// An estimate from the bins, kept within the run's exact minimum and
// maximum (a bin's interpolation reaches below its first sample).
double WithinRange(const Point& p, double v) {
  const auto lo = p.stats.find("min"), hi = p.stats.find("max");
  if (lo != p.stats.end()) v = std::max(v, lo->second);
  if (hi != p.stats.end()) v = std::min(v, hi->second);
  return v;
}

double Ratio(double base, double next) {
  if (base > 0) return next / base;
  return base == next ? 1.0 : std::nan("");
}

bool HasAllSamples(const Point& p) { return p.raw.size() == p.count; }

std::string RawMissing(const Run& run, const Point& p) {
  return run.label + ": " + p.id + ": keeps " + std::to_string(p.raw.size()) +
         " of its " + std::to_string(p.count) +
         " samples (run it with --raw, --raw-max at least -n)";
}

void FillQuantiles(const Point& a, const Point& b, PointComparison& pc) {
  std::array<std::vector<double>, 2> sorted;
  if (pc.from == "raw") {
    sorted = {a.raw, b.raw};
    for (auto& v : sorted) std::sort(v.begin(), v.end());
  }
  for (const QuantileDef& d : kQuantiles) {
    QuantileRatio qr{d.name, 0, 0, 0, "stats"};
    const auto sa = a.stats.find(d.name), sb = b.stats.find(d.name);
    if (sa != a.stats.end() && sb != b.stats.end()) {
      qr.base_ns = sa->second;
      qr.new_ns = sb->second;
    } else if (pc.from == "raw") {
      qr.from = "raw";
      qr.base_ns = RawQuantile(sorted[0], d);
      qr.new_ns = RawQuantile(sorted[1], d);
    } else {
      qr.from = "bins";
      qr.base_ns = WithinRange(a, BinsQuantile(pc.shared, 0, d));
      qr.new_ns = WithinRange(b, BinsQuantile(pc.shared, 1, d));
    }
    qr.ratio = Ratio(qr.base_ns, qr.new_ns);
    pc.quantiles.push_back(qr);
  }
}

PointComparison ComparePoint(const Run& base, const Point& a, const Run& next,
                             const Point& b, Source source) {
  PointComparison pc;
  pc.id = a.id;
  pc.identity = a.identity;
  pc.count = {a.count, b.count};
  pc.observations = {a.observations, b.observations};
  const bool raw = HasAllSamples(a) && HasAllSamples(b);
  if (source == Source::kRaw && !raw) {
    throw InputError(HasAllSamples(a) ? RawMissing(next, b)
                                      : RawMissing(base, a));
  }
  pc.from = raw && source != Source::kBins ? "raw" : "bins";
  try {
    pc.shared = pc.from == "raw" ? Rebin(BinSamples(a.raw), BinSamples(b.raw))
                                 : Rebin(a.bins, b.bins);
  } catch (const std::invalid_argument& e) {
    // Samples far outside any time's range (the stored bins were checked).
    throw InputError(base.label + " and " + next.label + ": " + a.id + ": " +
                     e.what());
  }
  pc.ks = KsDistance(pc.shared);
  pc.wasserstein_ns = Wasserstein1(pc.shared);
  pc.ks_pvalue = KsPValue(pc.ks, static_cast<double>(a.observations),
                          static_cast<double>(b.observations));
  FillQuantiles(a, b, pc);
  return pc;
}

// "a, b, c and 4 more": what a run has, for the no-point-in-common line.
std::string Sample(const Run& run) {
  std::string s;
  const size_t shown = std::min<size_t>(run.points.size(), 3);
  for (size_t i = 0; i < shown; ++i) {
    s += (i ? ", " : "") + run.points[i].id;
  }
  if (run.points.size() > shown) {
    s += " and " + std::to_string(run.points.size() - shown) + " more";
  }
  return s;
}

std::string Number(double v, const char* format = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

}  // namespace

const std::vector<std::string>& QuantileNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const QuantileDef& d : kQuantiles) v.emplace_back(d.name);
    return v;
  }();
  return names;
}

std::optional<std::string> CanonicalQuantile(std::string_view name) {
  if (name == "median") return "p50";
  for (const std::string& n : QuantileNames()) {
    if (n == name) return n;
  }
  return std::nullopt;
}

const QuantileRatio* PointComparison::Quantile(std::string_view name) const {
  for (const QuantileRatio& q : quantiles) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

Source ParseSource(const std::string& word) {
  if (word == "auto") return Source::kAuto;
  if (word == "raw") return Source::kRaw;
  if (word == "bins") return Source::kBins;
  throw std::invalid_argument("bad --distance-from '" + word +
                              "' (auto, raw or bins)");
}

Comparison Compare(const Run& base, const Run& next, Source source) {
  if (base.mode != next.mode) {
    throw InputError(next.label + ": mode " + next.mode + " but " + base.label +
                     " is " + base.mode);
  }
  Comparison c{base.label, next.label, base.mode, {}, {}, {}};
  // A point's id spells its whole identity (ParseRun keeps them unique).
  std::map<std::string, const Point*> in_next, in_base;
  for (const Point& b : next.points) in_next[b.id] = &b;
  for (const Point& a : base.points) {
    in_base[a.id] = &a;
    const auto b = in_next.find(a.id);
    if (b == in_next.end()) {
      c.only_in_base.push_back(a.id);
    } else {
      c.points.push_back(ComparePoint(base, a, next, *b->second, source));
    }
  }
  for (const Point& b : next.points) {
    if (!in_base.contains(b.id)) c.only_in_new.push_back(b.id);
  }
  if (c.points.empty()) {
    throw InputError("no point in common: " + base.label + " has " +
                     Sample(base) + "; " + next.label + " has " + Sample(next));
  }
  return c;
}

nlohmann::json Thresholds::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, limit] : max_ratio) {
    j["max_ratio"][name] = limit;
  }
  if (max_ks) j["max_ks"] = *max_ks;
  if (max_wasserstein_ns) j["max_wasserstein_ns"] = *max_wasserstein_ns;
  return j;
}

std::string Crossing::Line() const {
  if (check == "Wasserstein") {
    return point + ": " + check + " " + Number(value, "%.0f") + " ns > " +
           Number(limit, "%.0f") + " ns";
  }
  return point + ": " + check + " " +
         (std::isnan(value) ? "undefined (BASE not above 0)" : Number(value)) +
         " > " + Number(limit);
}

std::vector<Crossing> Judge(const Comparison& c, const Thresholds& t) {
  std::vector<Crossing> out;
  for (const PointComparison& p : c.points) {
    for (const std::string& name : QuantileNames()) {
      const auto limit = t.max_ratio.find(name);
      if (limit == t.max_ratio.end()) continue;
      const double r = p.Quantile(name)->ratio;
      if (std::isnan(r) || r > limit->second) {
        out.push_back({p.id, name + " ratio", r, limit->second});
      }
    }
    if (t.max_ks && p.ks > *t.max_ks) {
      out.push_back({p.id, "KS", p.ks, *t.max_ks});
    }
    if (t.max_wasserstein_ns && p.wasserstein_ns > *t.max_wasserstein_ns) {
      out.push_back(
          {p.id, "Wasserstein", p.wasserstein_ns, *t.max_wasserstein_ns});
    }
  }
  return out;
}

}  // namespace verbsbench::compare
