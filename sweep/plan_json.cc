// The plan's file (plan.json): PlanToJson and PlanFromJson (plan.h), which
// --resume reads back.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/json_number.h"
#include "sweep/plan.h"

namespace verbsemu::sweep {

using Json = nlohmann::json;

namespace {

// A duration axis's key in the file: its name, plural.
std::string PlanKey(const DurationAxis& a) { return std::string(a.name) + "s"; }

Json GoalJson(const PrecisionGoal& g) {
  if (g.rel <= 0) return nullptr;
  return {{"rel", g.rel},
          {"min_blocks", g.min_blocks},
          {"max_blocks", g.max_blocks},
          {"budget_s", g.budget_s}};
}

}  // namespace

std::string PlanToJson(const SweepPlan& plan) {
  Json order = Json::array();
  for (const PlannedRun& r : plan.order) {
    order.push_back({r.block, r.point, static_cast<int>(r.program)});
  }
  Json j = {{"version", 1},
            {"latencies", plan.latencies},
            {"bandwidths", plan.bandwidths},
            {"bw_mode", plan.bw_mode},
            {"repeat", plan.repeat},
            {"precision", GoalJson(plan.precision)},
            {"seed", plan.seed},
            {"metric", plan.metric},
            {"metric_file", plan.metric_file},
            {"metric_name", plan.metric_name},
            {"metric_unit", plan.metric_unit},
            {"command", plan.command},
            {"pingpong", plan.pingpong},
            {"control", plan.control},
            {"plot", plan.plot},
            {"timeout_s", plan.timeout_s},
            {"allow_unemulated", plan.allow_unemulated},
            {"shim",
             {{"path", plan.shim_path},
              {"version", plan.shim_version},
              {"digest", plan.shim_digest}}},
            {"order", order}};
  for (size_t i = 0; i < kDurationAxisCount; ++i) {
    j[PlanKey(kDurationAxes[i])] =
        plan.durations[i].empty() ? "0" : plan.durations[i];
  }
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// A whole number of type T, or an exception (base::WholeNumber: nlohmann's
// get<int>() of 2.3e69 is undefined behaviour, found by files_fuzz).
template <typename T>
T Whole(const Json& v) {
  if (const std::optional<T> n = base::WholeNumber<T>(v)) return *n;
  throw std::out_of_range("not a whole number in range");
}

// null (a fixed sweep, or a plan of an older version) or the goal;
// throws on a goal that makes no sense.
PrecisionGoal GoalFromJson(const Json& j) {
  PrecisionGoal g;
  if (j.is_null()) return g;
  g.rel = j.at("rel");
  g.min_blocks = Whole<int>(j.at("min_blocks"));
  g.max_blocks = Whole<int>(j.at("max_blocks"));
  g.budget_s = j.at("budget_s");
  if (!(g.rel > 0 && g.rel < 1) || g.min_blocks < 1 ||
      g.max_blocks < g.min_blocks || !(g.budget_s >= 0)) {
    throw std::invalid_argument("bad precision");
  }
  return g;
}

}  // namespace

std::optional<SweepPlan> PlanFromJson(const std::string& text,
                                      std::string* why) {
  const Json j = Json::parse(text, nullptr, false);
  SweepPlan plan;
  try {
    if (j.is_discarded() || j.at("version") != 1) throw std::exception();
    plan.latencies = j.at("latencies");
    plan.bandwidths = j.at("bandwidths");
    plan.bw_mode = j.at("bw_mode");
    plan.repeat = Whole<int>(j.at("repeat"));
    plan.precision = GoalFromJson(j.value("precision", Json()));
    plan.seed = Whole<uint64_t>(j.at("seed"));
    plan.metric = j.at("metric");
    plan.metric_file = j.at("metric_file");
    plan.metric_name = j.value("metric_name", "");
    plan.metric_unit = j.value("metric_unit", "");
    plan.command = j.at("command").get<std::vector<std::string>>();
    plan.pingpong = j.at("pingpong");
    plan.control = j.value("control", "");  // not in older plans
    plan.plot = j.at("plot");
    plan.timeout_s = j.at("timeout_s");
    // Not in the plans of older versions.
    plan.allow_unemulated = j.value("allow_unemulated", false);
    for (size_t i = 0; i < kDurationAxisCount; ++i) {
      plan.durations[i] = j.value(PlanKey(kDurationAxes[i]), "0");
    }
    const Json shim = j.value("shim", Json::object());
    plan.shim_path = shim.value("path", "");
    plan.shim_version = shim.value("version", "");
    plan.shim_digest = shim.value("digest", "");
    for (const Json& r : j.at("order")) {
      const int kind = Whole<int>(r.at(2));
      if (kind < 0 || kind >= static_cast<int>(std::size(kProgramNames))) {
        throw std::out_of_range("run kind");
      }
      plan.order.push_back({Whole<int>(r.at(0)), Whole<int>(r.at(1)),
                            static_cast<Program>(kind)});
    }
  } catch (const std::exception&) {
    *why = "plan.json is not a plan this version of verbsemu sweep wrote";
    return std::nullopt;
  }
  return plan;
}

}  // namespace verbsemu::sweep
