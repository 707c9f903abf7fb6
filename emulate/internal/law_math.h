// Numerics for emulate/delay_distribution.cc: the standard normal law
// accurate far into its tails, and the means of the clamped laws.
#ifndef VERBSEMU_EMULATE_INTERNAL_LAW_MATH_H_
#define VERBSEMU_EMULATE_INTERNAL_LAW_MATH_H_

namespace verbsemu::emulate::internal {

double NormalPdf(double z);
// Phi(z) through erfc, so the left tail keeps its relative accuracy down to
// about z = -37, where Phi underflows.
double NormalCdf(double z);
// Phi^-1(p) for p in (0, 1): Acklam's rational approximation refined by one
// step of Halley's method; |Phi(result) - p| is about machine precision.
double NormalQuantile(double p);

// E[clamp(X, 0, top)] for X ~ N(mean, sd), sd > 0.
double NormalClampedMean(double mean, double sd, double top);
// E[min(X, top)] for ln X ~ N(ln median, sigma), 0 < median <= top.
double LogNormalClampedMean(double median, double sigma, double top);
// E[min(X, top)] for a Pareto law, 0 < scale <= top, shape > 0.
double ParetoClampedMean(double scale, double shape, double top);

}  // namespace verbsemu::emulate::internal

#endif  // VERBSEMU_EMULATE_INTERNAL_LAW_MATH_H_
