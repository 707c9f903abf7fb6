// The LoP paper's model functions (Hoefler et al., §3) in the form the data
// can identify, their LogP baselines, and the fits that choose between them.
//
// t_rtt, per peer (a 1:n round divided by p):
//   logp      g + c/p                         a round grows by a gap per peer
//   pipeline  l1/(l2 + p) + c                 LoP without network saturation
//   lop       l1/(l2 + p) + c + d·e^{l5·p}    LoP's three sections
// The paper writes the saturation term l4·(1 − e^{l5(p − l6)}) next to a
// constant l3: only c = l3 + l4 and d = −l4·e^{−l5·l6} are identifiable, so
// those are what we fit and report.
// t_ov:
//   const     o                               LogP's overhead
//   lop       l1 + l2/(l3 + p)                LoP's pipeline start-up
// Each family is nested in the next, so the fits are compared by AICc and
// by F-tests against the LogP member.
#ifndef VERBSEMU_MODELS_LOP_LOP_MODELS_H_
#define VERBSEMU_MODELS_LOP_LOP_MODELS_H_

#include <span>
#include <string>
#include <vector>

#include "models/fit/nls.h"

namespace verbsemu::fit {

struct ModelSpec {
  std::string name;     // "logp", "pipeline", "lop", "const"
  std::string formula;  // as printed
  std::vector<std::string> params;
  Model model;
  // Bounds and data-derived starting points for the points p, y, w.
  Bounds (*bounds)(std::span<const double> p);
  std::vector<std::vector<double>> (*starts)(std::span<const double> p,
                                             std::span<const double> y,
                                             std::span<const double> w);
};

// The families, simplest first; each nested in the next.
const std::vector<ModelSpec>& RttFamily();
const std::vector<ModelSpec>& OverheadFamily();

// One member fitted to the data.
struct ModelFit {
  const ModelSpec* spec = nullptr;
  FitResult fit;
  double aicc = kNaN;
  FTest vs_logp;  // against the family's first member (none for it)
  double Eval(double p) const;
};

// Every member with at least one degree of freedom, fitted with relative
// weights (or unit weights); `chosen` is the lowest AICc (ties and no
// finite AICc: the simplest). Empty fits: no member fits the points.
struct FamilyFit {
  std::vector<ModelFit> fits;
  int chosen = -1;
  const ModelFit* Chosen() const {
    return chosen < 0 ? nullptr : &fits[static_cast<std::size_t>(chosen)];
  }
  // The family's first (LogP) member, if it was fitted.
  const ModelFit* LogP() const { return logp ? &fits.front() : nullptr; }
  bool logp = false;
};

enum class Weighting { kRelative, kUnit };

FamilyFit FitFamily(const std::vector<ModelSpec>& family,
                    std::span<const double> p, std::span<const double> y,
                    Weighting weighting = Weighting::kRelative,
                    const std::string& force = "");

}  // namespace verbsemu::fit

#endif  // VERBSEMU_MODELS_LOP_LOP_MODELS_H_
