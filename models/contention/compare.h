// Two contention measurements of the same graphs side by side: each edge's
// median time in one over its median time in the other. What a change of
// the fabric did to every transfer (a port rate halved should double every
// time; a new switch, a new policy), edge by edge.
#ifndef VERBSEMU_MODELS_CONTENTION_COMPARE_H_
#define VERBSEMU_MODELS_CONTENTION_COMPARE_H_

#include <string>
#include <vector>

#include "models/contention/contend_data.h"

namespace verbsemu::contention {

struct EdgeRatio {
  int base_graph = 0, other_graph = 0;  // indices into each file's graphs
  int edge = 0;
  double base_s = 0, other_s = 0;  // medians over each file's runs
  double ratio = 0;                // other_s / base_s
};

struct Comparison {
  std::vector<EdgeRatio> edges;  // in the other file's order
  // Graphs measured in one file and not the other.
  int only_base = 0, only_other = 0;
  // Over every edge's ratio (0 when no edge matched).
  double median = 0, min = 0, max = 0;
};

// Matches a graph of `other` with one of `base` of the same name, edges and
// plan (sizes, start offsets), the k-th such graph of one with the k-th of
// the other, so a set measured twice matches graph by graph. Each edge's
// time is its receiver's end after the edge's start (MeasuredSeconds).
Comparison Compare(const ContendData& base, const ContendData& other);

// The matched edges whose ratio lies outside expect ± tolerance, farthest
// first.
std::vector<EdgeRatio> Outside(const Comparison& c, double expect,
                               double tolerance);

}  // namespace verbsemu::contention

#endif  // VERBSEMU_MODELS_CONTENTION_COMPARE_H_
