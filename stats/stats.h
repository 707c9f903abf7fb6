// The statistics every part uses, once: Student's t quantile (GSL's), the
// median, and a quantile of sorted values. Higher-level summaries (the
// sweep's bootstrap intervals, the fits' intervals) are built on these.
#ifndef VERBSEMU_STATS_STATS_H_
#define VERBSEMU_STATS_STATS_H_

#include <vector>

namespace verbsemu::stats {

// The two-sided 95% quantile of Student's t with `df` degrees of freedom
// (t_{0.975}): infinite for df <= 0, 1.96 in the limit.
double T975(double df);

// The median: the middle value, or the mean of the two middle ones; NaN
// for no values.
double Median(std::vector<double> values);

// The q-quantile (0 <= q <= 1) of sorted values, interpolated linearly
// between order statistics (R's type 7); NaN for no values.
double Quantile(const std::vector<double>& sorted, double q);

}  // namespace verbsemu::stats

#endif  // VERBSEMU_STATS_STATS_H_
