#include "sweep/grid.h"

#include <algorithm>

#include "shim/knobs.h"

namespace verbsemu::sweep {
namespace {

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    items.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// Applies `value` through the knob behind `flag`; "" when accepted.
std::string Apply(std::string_view flag, const std::string& value,
                  shim::Settings* s) {
  const shim::Knob* knob = shim::FindKnobByFlag(flag);
  std::string why = shim::ValidateKnob(*knob, value);
  if (why.empty() && !knob->apply(value, s, &why) && why.empty()) {
    why = "refused";
  }
  return why.empty() ? "" : std::string(flag) + ": " + why;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> GridPoint::Environment(
    std::string_view bw_mode) const {
  std::vector<std::pair<std::string, std::string>> env;
  if (latency_ns > 0) {
    env.emplace_back(shim::FindKnobByFlag("--latency")->env, latency);
  }
  if (bandwidth_share != 1) {
    env.emplace_back(shim::FindKnobByFlag("--bandwidth")->env, bandwidth);
    env.emplace_back(shim::FindKnobByFlag("--bw-mode")->env, bw_mode);
  }
  return env;
}

std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths, std::string* why) {
  const std::vector<std::string> lat = SplitList(latencies);
  const std::vector<std::string> bw = bandwidths.empty()
                                          ? std::vector<std::string>{"100%"}
                                          : SplitList(bandwidths);
  Grid g;
  for (const std::string& l : lat) {
    for (const std::string& b : bw) {
      shim::Settings s;
      std::string err = l == "0" ? "" : Apply("--latency", l, &s);
      if (err.empty()) err = Apply("--bandwidth", b, &s);
      if (!err.empty()) {
        *why = err;
        return std::nullopt;
      }
      GridPoint p{l, b, s.engine.latency_ns, 1};
      const auto& target = s.engine.bandwidth;
      if (target.kind == emulate::BandwidthTarget::Kind::kFraction) {
        p.bandwidth_share = target.fraction;
      } else if (target.kind == emulate::BandwidthTarget::Kind::kAbsolute) {
        p.bandwidth_share = 0;
      }
      for (const GridPoint& q : g.points) {
        if (q.latency_ns == p.latency_ns && q.bandwidth == p.bandwidth) {
          *why = "the grid names latency ";
          *why += l;
          *why += " with bandwidth ";
          *why += b;
          *why += " twice";
          return std::nullopt;
        }
      }
      g.points.push_back(p);
    }
  }
  return g;
}

void EnsureBaseline(Grid* grid) {
  for (const GridPoint& p : grid->points) {
    if (p.baseline()) return;
  }
  grid->points.insert(grid->points.begin(), GridPoint{"0", "100%", 0, 1});
}

}  // namespace verbsemu::sweep
