#include "sweep/grid.h"

#include <algorithm>

#include "settings/knobs.h"

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
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    if (durations_ns[i] > 0) {
      env.emplace_back(shim::FindKnobByFlag(kDurationAxes[i].flag)->env,
                       durations[i]);
    }
  }
  return env;
}

namespace {

// The point of latency `l`, bandwidth `b` and one value per duration axis;
// "" with `*p` set, else why not.
std::string MakePoint(const std::string& l, const std::string& b,
                      const DurationTexts& d, GridPoint* p) {
  shim::Settings s;
  std::string err = l == "0" ? "" : Apply("--latency", l, &s);
  if (err.empty()) err = Apply("--bandwidth", b, &s);
  for (size_t i = 0; i < kDurationAxisCount && err.empty(); ++i) {
    err = Apply(kDurationAxes[i].flag, d[i], &s);
  }
  if (!err.empty()) return err;
  *p = GridPoint{l, b, s.engine.latency_ns, 1, d, {}};
  const emulate::Config& c = s.engine;
  p->durations_ns = {c.overhead_ns, c.recv_overhead_ns, c.gap_ns};
  const auto& target = c.bandwidth;
  if (target.kind == emulate::BandwidthTarget::Kind::kFraction) {
    p->bandwidth_share = target.fraction;
  } else if (target.kind == emulate::BandwidthTarget::Kind::kAbsolute) {
    p->bandwidth_share = 0;
  }
  return "";
}

bool SamePoint(const GridPoint& a, const GridPoint& b) {
  return a.latency_ns == b.latency_ns && a.bandwidth == b.bandwidth &&
         a.durations_ns == b.durations_ns;
}

// Every combination of one value from each list, the first list's values
// outermost.
std::vector<DurationTexts> Combinations(
    const std::array<std::vector<std::string>, kDurationAxisCount>& lists) {
  std::vector<DurationTexts> out(1);
  for (size_t axis = 0; axis < kDurationAxisCount; ++axis) {
    std::vector<DurationTexts> next;
    for (const DurationTexts& prefix : out) {
      for (const std::string& v : lists[axis]) {
        next.push_back(prefix);
        next.back()[axis] = v;
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths,
                              const DurationTexts& durations,
                              std::string* why) {
  const std::vector<std::string> lat = SplitList(latencies);
  const std::vector<std::string> bw = bandwidths.empty()
                                          ? std::vector<std::string>{"100%"}
                                          : SplitList(bandwidths);
  std::array<std::vector<std::string>, kDurationAxisCount> lists;
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    lists[i] = durations[i].empty() ? std::vector<std::string>{"0"}
                                    : SplitList(durations[i]);
  }
  const std::vector<DurationTexts> combos = Combinations(lists);
  Grid g;
  for (const std::string& l : lat) {
    for (const std::string& b : bw) {
      for (const DurationTexts& d : combos) {
        GridPoint p;
        *why = MakePoint(l, b, d, &p);
        if (!why->empty()) return std::nullopt;
        for (const GridPoint& q : g.points) {
          if (SamePoint(p, q)) {
            *why = "the grid names latency " + l + " with bandwidth " + b;
            for (size_t i = 0; i < kDurationAxisCount; ++i) {
              if (p.durations_ns[i] != 0) {
                *why += ", " + std::string(kDurationAxes[i].name) + " " + d[i];
              }
            }
            *why += " twice";
            return std::nullopt;
          }
        }
        g.points.push_back(p);
      }
    }
  }
  return g;
}

std::optional<Grid> ParseGrid(std::string_view latencies,
                              std::string_view bandwidths, std::string* why) {
  return ParseGrid(latencies, bandwidths, DurationTexts{}, why);
}

void EnsureBaseline(Grid* grid) {
  for (const GridPoint& p : grid->points) {
    if (p.baseline()) return;
  }
  grid->points.insert(grid->points.begin(), GridPoint{"0", "100%", 0, 1});
}

}  // namespace verbsemu::sweep
