// A verbsbench --json run as the comparison reads it: its mode and its
// measured points, each with an identity (what was measured), the quantiles
// its stats object carries, its stored histogram bins and, when the run kept
// every sample (--raw), the samples.
#ifndef VERBSBENCH_COMPARE_RUN_H_
#define VERBSBENCH_COMPARE_RUN_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "verbsbench/compare/distance.h"

namespace verbsbench::compare {

// A file that cannot be compared: the message is one line that names it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a point measured: two runs' points are compared when all of it
// agrees.
struct Identity {
  std::string mode;
  std::string op;  // lat and bw
  uint64_t size = 0;
  bool is_inline = false;
  bool bidirectional = false;  // bw
  std::string curve;           // lop
  uint64_t p = 0;
  // "lat send size 8", "bw write inline size 4096 bidirectional",
  // "lop rtt2_1n_send_inline p=2".
  std::string Id() const;
  nlohmann::json ToJson() const;
};

struct Point {
  std::string id;  // identity.Id(), unique in its run
  Identity identity;
  uint64_t count = 0;  // samples
  // Independent observations: bw's samples are shares of completion
  // batches, so its observations (the timed intervals) count; else count.
  uint64_t observations = 0;
  // The stats object's quantiles by name ("min", "p50", "p90", "p99",
  // "p999", "max", "mean"), in ns; only those it carries.
  std::map<std::string, double> stats;
  std::vector<Bin> bins;    // stored histogram (merged bins, about 4% wide)
  std::vector<double> raw;  // every sample, or empty
};

struct Run {
  std::string label;  // as the user named the file
  std::string mode;   // lat, bw or lop
  std::vector<Point> points;
};

// The points of a run document. Throws InputError ("LABEL: ...") when it is
// not a verbsbench root's result or a point is malformed.
Run ParseRun(const nlohmann::json& doc, const std::string& label);

// Reads and parses the file at `path` (labelled by the path); throws
// InputError when it cannot be read, is not JSON or fails ParseRun.
Run ReadRun(const std::string& path);

}  // namespace verbsbench::compare

#endif  // VERBSBENCH_COMPARE_RUN_H_
