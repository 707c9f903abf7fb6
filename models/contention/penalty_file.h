// The penalties file: a penalty model and, optionally, measured first-step
// penalties of exact shapes (contentionfit export writes it; the input of
// a VERBSEMU_FABRIC=penalty:FILE policy). Text, one entry a line:
//   # verbsemu penalties v1
//   model mm2011-node
//   shape 0>1,0>2,3>1 rho=3.4,3.4,1.33
// The first line names the format and its version; later lines starting
// with '#' and blank lines are ignored. `model` (exactly one) is one of
// models.h; each `shape` is a canonical form (graph.h) with one penalty
// >= 1 per edge in the form's edge order. docs/contention.md.
#ifndef VERBSEMU_MODELS_CONTENTION_PENALTY_FILE_H_
#define VERBSEMU_MODELS_CONTENTION_PENALTY_FILE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.h"
#include "models/contention/models.h"

namespace verbsemu::contention {

inline constexpr char kPenaltyHeader[] = "# verbsemu penalties v1";
inline constexpr char kPenaltyHeaderFamily[] = "# verbsemu penalties v";
inline constexpr std::size_t kMaxPenaltyFileBytes = 1 << 20;
inline constexpr std::size_t kMaxPenaltyShapes = 10000;
inline constexpr double kMaxPenalty = 1e6;

struct PenaltyFile {
  const Model* model = nullptr;
  // Canonical form -> penalty per edge, in the form's edge order.
  std::map<std::string, std::vector<double>> shapes;

  // Penalties of g by edge: its shape's if listed, else the model's.
  std::vector<double> operator()(const Graph& g) const;
};

// nullopt with one line in *why ("line 3: ...") for anything else.
std::optional<PenaltyFile> ParsePenaltyFile(std::string_view text,
                                            std::string* why);

// The text of f (model set; shapes canonical, penalties >= 1).
std::string WritePenaltyFile(const PenaltyFile& f);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_PENALTY_FILE_H_
