// The penalty models, one table: name (as the CLI takes it), the function
// of a static contention graph, and what it models.
#ifndef VERBSEMU_MODELS_CONTENTION_MODELS_H_
#define VERBSEMU_MODELS_CONTENTION_MODELS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.h"

namespace verbsemu::contention {

// Penalty per edge (index as g.edges), each >= 1 and finite.
using PenaltyFn = std::vector<double> (*)(const Graph& g);

struct Model {
  std::string_view name;
  PenaltyFn penalties;
  std::string_view description;
};

std::span<const Model> Models();
// nullptr for an unknown name.
const Model* FindModel(std::string_view name);
// "mm2011-node, mm2011-edge, ..." for messages.
std::string ModelNames();

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_MODELS_H_
