#include "emulate/internal/law_math.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace verbsemu::emulate::internal {
namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2Pi = 2.5066282746310002;
constexpr double kLogSqrt2Pi = 0.91893853320467274;

// P. J. Acklam, "An algorithm for computing the inverse normal cumulative
// distribution function" (2003): rational approximations with relative
// error below 1.15e-9, a central one and one for each tail.
constexpr std::array<double, 6> kCentralNum = {
    -3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
    1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr std::array<double, 5> kCentralDen = {
    -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
    6.680131188771972e+01, -1.328068155288572e+01};
constexpr std::array<double, 6> kTailNum = {
    -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
    -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr std::array<double, 4> kTailDen = {
    7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
    3.754408661907416e+00};
constexpr double kTailBelow = 0.02425;

// Horner's rule; `leading_one` appends a final coefficient 1.
template <size_t N>
double Polynomial(const std::array<double, N>& c, double x, bool leading_one) {
  double sum = 0;
  for (const double coefficient : c) sum = sum * x + coefficient;
  return leading_one ? sum * x + 1 : sum;
}

// Acklam's approximation for p in (0, 0.5].
double AcklamLowerHalf(double p) {
  if (p < kTailBelow) {
    const double q = std::sqrt(-2 * std::log(p));
    return Polynomial(kTailNum, q, false) / Polynomial(kTailDen, q, true);
  }
  const double q = p - 0.5, r = q * q;
  return Polynomial(kCentralNum, r, false) * q /
         Polynomial(kCentralDen, r, true);
}

// log Phi(z) + z^2/2 for z < -35, where Phi underflows: the asymptotic
// series of Mills' ratio, Phi(z) = phi(z)/|z| (1 - 1/z^2 + 3/z^4 - 15/z^6
// + 105/z^8 - 945/z^10 ...), whose next term is below 1e-15 there.
double LogNormalCdfTailFactor(double z) {
  const double r = 1 / (z * z);
  const double series = 1 - r * (1 - r * (3 - r * (15 - r * (105 - r * 945))));
  return -std::log(-z) - kLogSqrt2Pi + std::log(series);
}

}  // namespace

double NormalPdf(double z) { return std::exp(-0.5 * z * z) / kSqrt2Pi; }

double NormalCdf(double z) { return 0.5 * std::erfc(-z / kSqrt2); }

double NormalQuantile(double p) {
  // By symmetry from the lower half, where 1 - p is exact and p keeps its
  // full resolution near 0.
  if (p > 0.5) return -NormalQuantile(1 - p);
  const double x = AcklamLowerHalf(p);
  // One Halley step on f(x) = Phi(x) - p (Acklam's own refinement).
  const double e = NormalCdf(x) - p;
  const double u = e * kSqrt2Pi * std::exp(0.5 * x * x);
  const double refined = x - u / (1 + 0.5 * x * u);
  return std::isfinite(refined) ? refined : x;
}

namespace {

// E[(X - a)+] for X ~ N(mean, sd): (mean - a) Phi(d) + sd phi(d) with
// d = (mean - a) / sd. Far in the left tail the two terms cancel, so there
// the same series of Mills' ratio is used instead.
double NormalExcessOver(double a, double mean, double sd) {
  const double d = (mean - a) / sd;
  if (d >= -35) return (mean - a) * NormalCdf(d) + sd * NormalPdf(d);
  const double r = 1 / (d * d);
  return sd * NormalPdf(d) * r * (1 - r * (3 - r * (15 - r * 105)));
}

}  // namespace

double NormalClampedMean(double mean, double sd, double top) {
  return NormalExcessOver(0, mean, sd) - NormalExcessOver(top, mean, sd);
}

// E[X; X < top] + top P(X >= top), where E[X; X < top] = exp(mu +
// sigma^2/2) Phi(z) with z = w - sigma, w = (ln top - mu) / sigma, is taken
// in logs; for z < -35, where Phi(z) underflows, through mu + sigma^2/2 -
// z^2/2 = ln top - w^2/2 and the tail series.
double LogNormalClampedMean(double median, double sigma, double top) {
  const double mu = std::log(median), log_top = std::log(top);
  const double w = (log_top - mu) / sigma, z = w - sigma;
  const double log_below =
      z >= -35 ? mu + 0.5 * sigma * sigma + std::log(NormalCdf(z))
               : log_top - 0.5 * w * w + LogNormalCdfTailFactor(z);
  return std::exp(log_below) + top * NormalCdf(-w);
}

// SCALE plus the integral of the survival function (scale/x)^shape from
// scale to top.
double ParetoClampedMean(double scale, double shape, double top) {
  const double log_ratio = std::log(top / scale);  // >= 0
  const double t = 1 - shape, tl = t * log_ratio;
  double above_scale = scale * log_ratio;  // shape 1
  if (t != 0 && tl < 1) {
    above_scale = scale * std::expm1(tl) / t;
  } else if (t != 0) {  // in logs: exp(tl) alone may overflow
    above_scale = (std::exp(std::log(scale) + tl) - scale) / t;
  }
  return std::min(scale + above_scale, top);
}

}  // namespace verbsemu::emulate::internal
