// The LoP paper's model functions (Hoefler et al., section 3) and robust
// fits of them:
//   t_rtt(p) = l1/(l2 + p) + l3 + l4 * (1 - exp(l5 * (p - l6)))
//   t_ov(p)  = l1 + l2/(l3 + p)
// Initial guesses come from the data: for a grid of the nonlinear
// parameters the model is linear in the others, which are solved exactly by
// linear least squares; the best grid points start Levenberg-Marquardt.
#ifndef VERBSEMU_TOOLS_FIT_LOP_MODELS_H_
#define VERBSEMU_TOOLS_FIT_LOP_MODELS_H_

#include <span>
#include <vector>

#include "tools/fit/lm.h"

namespace verbsemu::fit {

inline constexpr std::size_t kRttParams = 6;
inline constexpr std::size_t kOverheadParams = 3;

double RttModel(double p, std::span<const double> l);
double OverheadModel(double p, std::span<const double> l);

// Models with analytic gradients.
Model MakeRttModel();
Model MakeOverheadModel();

// Box bounds that keep the pole of l/(l_k + p) left of the smallest p and
// the exponential finite over the data range.
Bounds RttBounds(std::span<const double> p);
Bounds OverheadBounds(std::span<const double> p);

// Data-derived starting points, best first (at most max_starts).
std::vector<std::vector<double>> RttStarts(std::span<const double> p,
                                           std::span<const double> y,
                                           std::size_t max_starts = 8);
std::vector<std::vector<double>> OverheadStarts(std::span<const double> p,
                                                std::span<const double> y,
                                                std::size_t max_starts = 6);

// Multi-start fits. Need at least as many points as parameters; otherwise
// the result has reason kBadInput.
FitResult FitRtt(std::span<const double> p, std::span<const double> y,
                 const LmOptions& options = {});
FitResult FitOverhead(std::span<const double> p, std::span<const double> y,
                      const LmOptions& options = {});

}  // namespace verbsemu::fit

#endif  // VERBSEMU_TOOLS_FIT_LOP_MODELS_H_
