// The four modes, one file each (lat.cc, bw.cc, lop_mode.cc, loggp_mode.cc):
// which points to measure, with which pattern, and the typed results. They see
// the patterns only through Measurements, so tests drive them without a device.
#ifndef VERBSBENCH_INTERNAL_MODES_H_
#define VERBSBENCH_INTERNAL_MODES_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "verbsbench/internal/measurements.h"
#include "verbsbench/options.h"
#include "verbsbench/result.h"

namespace verbsbench::internal {

std::vector<LatPoint> RunLat(Measurements& m, const Options& o,
                             std::ostream& progress);
std::vector<BwPoint> RunBw(Measurements& m, const Options& o,
                           std::ostream& progress);
std::vector<LopCurve> RunLop(Measurements& m, const Options& o,
                             std::ostream& progress);
// Per size: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) with d = --loggp-delay or
// the larger of the median PRTT(1,0,s) and twice the gap, then o_r settling
// for the median PRTT(n,0,s).
std::vector<LoggpPoint> RunLoggp(Measurements& m, const Options& o,
                                 std::ostream& progress);

// Iterations per point: --iters, or with --duration the count a short pilot
// run (given the iterations to run) says fills the duration.
uint64_t IterationsFor(const Options& o,
                       const std::function<Recorder(uint64_t)>& pilot);

// RDMA read has no inline variant: with both inline modes, run it once.
bool SkipInline(Op op, bool inl, const Options& o);

// Calls `point` for every message lat and bw measure: each op, inline mode
// (but SkipInline) and size, in that order.
void ForEachMessage(const Options& o,
                    const std::function<void(const Message&)>& point);

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_MODES_H_
