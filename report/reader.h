// Reads one JSON report of the shim (schema.h) into what a reader judges a
// run by: the process, whether it was emulated, and its warnings.
#ifndef VERBSEMU_REPORT_READER_H_
#define VERBSEMU_REPORT_READER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::report {

struct Warning {
  std::string code;      // stable, e.g. "hidden-qps"
  std::string severity;  // "note", "warning" or "error"
  bool invalidates = false;
  std::string text;  // the line the shim printed
};

// The process's waits: one per delay it waited (a spin, or a deferred
// post's hold), from the wait's start to its end.
struct Waits {
  double count = 0;
  double waited_ns = 0;         // all of them
  double lost_cpu = 0;          // waits whose thread lost the CPU
  double lost_cpu_late_ns = 0;  // those waits' lateness
};

struct ShimReport {
  long pid = 0;
  std::string command;
  bool emulated = false;  // false: a configuration error left it unemulated
  std::string config_error;
  std::vector<Warning> warnings;
  std::optional<Waits> waits;  // none from a shim that did not write them
};

// The document in `text`; nullopt, with one line in `why`, when it is not
// complete JSON (a cut write), not a shim report, or another version.
std::optional<ShimReport> ParseReport(std::string_view text, std::string* why);

// "" when the process was emulated; else why not, one line: the
// configuration error, or the first warning that invalidates emulation.
std::string NotEmulated(const ShimReport& r);

}  // namespace verbsemu::report

#endif  // VERBSEMU_REPORT_READER_H_
