// The checks a contention measurement can make of itself, before anyone
// fits it: the one-edge graphs' spread (T_ref must be known well), the
// duplex and independent pairs of the calibrate set (a penalty of 1 each:
// otherwise the fabric between those vertices is not full duplex or not
// non-blocking, and every penalty measured there includes that), and the
// edges that started late (the common start missed by more than a small
// part of T_ref).
#ifndef VERBSBENCH_CONTEND_CHECKS_H_
#define VERBSBENCH_CONTEND_CHECKS_H_

#include <string>
#include <vector>

#include "models/contention/contend_data.h"

namespace verbsbench::contend {

struct CheckLimits {
  double max_cv = 0.02;           // of a one-edge graph's T over its runs
  double rho_tolerance = 0.03;    // |T/T_ref - 1| of the duplex and pairs
  double max_late_share = 0.005;  // a start after t0, as a share of T_ref
};

// One line per finding, each saying what was seen and what it means; none
// when the measurement passes. The pair checks and the late starts need
// T_ref, so a measurement without a one-edge graph gets only the spread.
std::vector<std::string> Check(const verbsemu::contention::ContendData& d,
                               const CheckLimits& limits = {});

}  // namespace verbsbench::contend

#endif  // VERBSBENCH_CONTEND_CHECKS_H_
