// A file's whole contents: the one reader of logs, reports, plan.json and
// runs.csv in the sweep.
#ifndef VERBSEMU_SWEEP_INTERNAL_READ_FILE_H_
#define VERBSEMU_SWEEP_INTERNAL_READ_FILE_H_

#include <string>

namespace verbsemu::sweep::internal {

// The contents of `path`; "" and *ok false (when given) if it cannot be
// opened.
std::string ReadFile(const std::string& path, bool* ok = nullptr);

// At most the last `max` bytes of `path` (a run's log can be gigabytes).
std::string ReadFileTail(const std::string& path, size_t max);

}  // namespace verbsemu::sweep::internal

#endif  // VERBSEMU_SWEEP_INTERNAL_READ_FILE_H_
