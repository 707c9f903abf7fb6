#include "models/contention/models.h"

#include <array>

#include "models/contention/rules.h"
#include "models/contention/sharing.h"

namespace verbsemu::contention {
namespace {

std::vector<double> Mm2011Node(const Graph& g) {
  return Mm2011Penalties(g, RuleB::kNode);
}
std::vector<double> Mm2011Edge(const Graph& g) {
  return Mm2011Penalties(g, RuleB::kEdge);
}
std::vector<double> IbHol(const Graph& g) { return IbHolPenalties(g); }

constexpr std::array kModels = {
    Model{"mm2011-node", Mm2011Node,
          "Martinasso & Mehaut rules, rule (b) on the competitor's final "
          "penalty (the paper's Figs. 2 and 4)"},
    Model{"mm2011-edge", Mm2011Edge,
          "Martinasso & Mehaut rules, rule (b) on the competitor's per-edge "
          "penalty (the paper's Fig. 3)"},
    Model{"maxmin", MaxMinPenalties,
          "max-min fair sharing of egress and ingress links"},
    Model{"ib-hol", IbHol,
          "NIC round robin per chunk with head-of-line blocking at the "
          "destination's ingress link"},
};

}  // namespace

std::span<const Model> Models() { return kModels; }

const Model* FindModel(std::string_view name) {
  for (const Model& m : kModels)
    if (m.name == name) return &m;
  return nullptr;
}

std::string ModelNames() {
  std::string s;
  for (const Model& m : kModels) {
    if (!s.empty()) s += ", ";
    s += m.name;
  }
  return s;
}

}  // namespace verbsemu::contention
