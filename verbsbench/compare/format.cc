#include "verbsbench/compare/format.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <string>

namespace verbsbench::compare {
namespace {

using nlohmann::json;

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// A table cell: right-aligned, 9 wide, one space before.
std::string Cell(const std::string& s) {
  return s.size() >= 9 ? " " + s : std::string(10 - s.size(), ' ') + s;
}

std::string PValue(double p) { return p < 1e-15 ? "< 1e-15" : Fmt("%.2g", p); }

void PrintPoint(const PointComparison& p, std::ostream& out) {
  out << "\n"
      << p.id << "   samples " << p.count[0] << " / " << p.count[1]
      << "   distances from "
      << (p.from == "raw" ? "raw samples" : "stored bins") << " ("
      << p.shared.intervals() << " shared bins)\n";
  std::string names = "  [us]", base = "  BASE", next = "  NEW ",
              ratio = " ratio";
  for (const QuantileRatio& q : p.quantiles) {
    // A quantile not written by both runs is marked with its source.
    const char* mark = q.from == "stats" ? "" : q.from == "raw" ? "'" : "~";
    names += Cell(q.name + mark);
    base += Cell(Fmt("%.3f", q.base_ns / 1000));
    next += Cell(Fmt("%.3f", q.new_ns / 1000));
    ratio += Cell(std::isnan(q.ratio) ? "n/a" : Fmt("%.3f", q.ratio));
  }
  out << names << "\n" << base << "\n" << next << "\n" << ratio << "\n";
  out << "  KS " << Fmt("%.3f", p.ks) << " (p " << PValue(p.ks_pvalue) << ", "
      << p.observations[0] << " and " << p.observations[1]
      << " observations)   Wasserstein-1 "
      << Fmt("%.3f", p.wasserstein_ns / 1000) << " us\n";
}

}  // namespace

void PrintComparison(const Comparison& c, std::ostream& out) {
  out << "# verbsbench compare (" << c.mode << ")  BASE " << c.base_label
      << "  NEW " << c.new_label << "\n";
  out << "# ratio = NEW/BASE; ' = exact from the raw samples, ~ = "
         "interpolated in the shared bins (the rest as the runs wrote "
         "them)\n";
  out << "# KS and Wasserstein-1 on one shared bin layout: raw samples on "
         "1% log bins, else the runs' stored bins (about 4%)\n";
  for (const PointComparison& p : c.points) PrintPoint(p, out);
  if (!c.only_in_base.empty() || !c.only_in_new.empty()) out << "\n";
  for (const std::string& id : c.only_in_base) {
    out << "only in BASE: " << id << "\n";
  }
  for (const std::string& id : c.only_in_new) {
    out << "only in NEW: " << id << "\n";
  }
}

void PrintVerdict(const Comparison& c, const Thresholds& t,
                  const std::vector<Crossing>& crossings, std::ostream& out) {
  const size_t checks =
      t.max_ratio.size() + (t.max_ks ? 1 : 0) + (t.max_wasserstein_ns ? 1 : 0);
  const std::string points = std::to_string(c.points.size()) + " point" +
                             (c.points.size() == 1 ? "" : "s");
  if (t.empty()) {
    out << "\nreport only: " << points << " compared, no threshold given\n";
    return;
  }
  if (crossings.empty()) {
    out << "\nPASS: " << points << " within " << checks << " threshold"
        << (checks == 1 ? "" : "s") << "\n";
    return;
  }
  std::set<std::string> failed;
  for (const Crossing& x : crossings) failed.insert(x.point);
  out << "\nFAIL: " << crossings.size() << " threshold crossing"
      << (crossings.size() == 1 ? "" : "s") << " in " << failed.size() << " of "
      << points << "\n";
}

json ComparisonJson(const Comparison& c, const Thresholds& t,
                    const std::vector<Crossing>& crossings) {
  json points = json::array();
  for (const PointComparison& p : c.points) {
    json quantiles = json::array();
    for (const QuantileRatio& q : p.quantiles) {
      quantiles.push_back(
          {{"name", q.name},
           {"base_ns", q.base_ns},
           {"new_ns", q.new_ns},
           {"ratio", std::isnan(q.ratio) ? json(nullptr) : json(q.ratio)},
           {"from", q.from}});
    }
    points.push_back(
        {{"point", p.id},
         {"identity", p.identity.ToJson()},
         {"samples", {{"base", p.count[0]}, {"new", p.count[1]}}},
         {"observations",
          {{"base", p.observations[0]}, {"new", p.observations[1]}}},
         {"quantiles", quantiles},
         {"distance",
          {{"from", p.from},
           {"shared_bins", p.shared.intervals()},
           {"ks", p.ks},
           {"ks_pvalue", p.ks_pvalue},
           {"wasserstein_ns", p.wasserstein_ns}}}});
  }
  json crossed = json::array();
  for (const Crossing& x : crossings) {
    crossed.push_back(
        {{"point", x.point},
         {"check", x.check},
         {"value", std::isnan(x.value) ? json(nullptr) : json(x.value)},
         {"limit", x.limit}});
  }
  return {{"tool", "verbsbench compare"},
          {"base", c.base_label},
          {"new", c.new_label},
          {"mode", c.mode},
          {"points", points},
          {"only_in_base", c.only_in_base},
          {"only_in_new", c.only_in_new},
          {"thresholds", t.ToJson()},
          {"crossings", crossed},
          {"pass", crossings.empty()}};
}

}  // namespace verbsbench::compare
