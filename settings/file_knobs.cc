#include "settings/file_knobs.h"

#include <memory>
#include <optional>
#include <utility>

#include "base/enum_table.h"
#include "base/read_file.h"
#include "emulate/config.h"
#include "emulate/delay_distribution.h"
#include "emulate/topology.h"
#include "models/contention/models.h"
#include "models/contention/penalty_file.h"

namespace verbsemu::shim {

bool ApplyPenalties(std::string_view t, Settings* s, std::string* why) {
  if (s->penalties != nullptr && s->penalties_from_fabric) {
    *why = "VERBSEMU_FABRIC names the penalties already (" +
           Printable(s->penalties->source) + "): give them once";
    return false;
  }
  auto settings = std::make_shared<PenaltySettings>();
  settings->source = std::string(t);
  if (const contention::Model* model = contention::FindModel(t)) {
    settings->penalties.model = model;
  } else {
    std::string text;
    if (!base::ReadFileText(settings->source, contention::kMaxPenaltyFileBytes,
                            &text, why)) {
      *why = "'" + Printable(t) + "' is no model (" + contention::ModelNames() +
             ") and not a penalties file: " + *why;
      return false;
    }
    std::string file_why;
    auto file = contention::ParsePenaltyFile(text, &file_why);
    if (!file) {
      *why = settings->source + ": " + file_why;
      return false;
    }
    settings->penalties = std::move(*file);
  }
  s->penalties = std::move(settings);
  return true;
}

bool ApplyFabric(std::string_view t, Settings* s, std::string* why) {
  std::optional<std::string_view> penalties;
  if (t == "ib-hol") {
    penalties = t;
    t = "penalty";
  } else if (t.starts_with("penalty:")) {
    penalties = t.substr(8);
    t = "penalty";
  }
  const auto fabric = base::ParseEnum<emulate::Fabric>(t);
  if (!fabric) return false;
  s->engine.fabric = *fabric;
  if (!penalties) return true;
  if (!ApplyPenalties(*penalties, s, why)) return false;
  s->penalties_from_fabric = true;
  return true;
}

bool ApplyTopology(std::string_view t, Settings* s, std::string* why) {
  auto settings = std::make_shared<TopologySettings>();
  settings->path = std::string(t);
  auto topology = emulate::LoadTopology(settings->path, why);
  if (!topology) return false;
  for (const emulate::LinkClass& c : topology->classes()) {
    if (c.latency.empty()) {
      settings->latency.emplace_back();
      continue;
    }
    std::string law_why;
    auto law = emulate::ParseDelayDistribution(c.latency, &law_why);
    if (!law) {
      *why = settings->path + ": line " + std::to_string(c.line) + ": class " +
             c.name + ": latency '" + Printable(c.latency) +
             "' is not accepted: " + law_why;
      return false;
    }
    settings->latency.emplace_back(std::move(*law));
  }
  settings->topology = std::move(*topology);
  s->topology = std::move(settings);
  return true;
}

bool TopologySettings::AddsSomething() const {
  for (size_t i = 0; i < latency.size(); ++i) {
    if ((latency[i] && latency[i]->Mean() > 0) ||
        topology.classes()[i].bandwidth.enabled()) {
      return true;
    }
  }
  return false;
}

}  // namespace verbsemu::shim
