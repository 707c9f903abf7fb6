// The one reader of the small text files the settings name (a replayed
// histogram, a topology): POSIX reads with a size bound, no exceptions (a
// directory or a device fails with the system's reason, where an ifstream
// throws from inside its buffer), since the shim must never abort its host.
#ifndef VERBSEMU_BASE_READ_FILE_H_
#define VERBSEMU_BASE_READ_FILE_H_

#include <cstddef>
#include <string>

namespace verbsemu::base {

// The file's bytes into `*text`; false with the system's reason, "not a
// regular file" (a FIFO, a device, a directory: refused without blocking),
// or "it is larger than N MiB", in `*error`.
bool ReadFileText(const std::string& path, size_t max_bytes, std::string* text,
                  std::string* error);

}  // namespace verbsemu::base

#endif  // VERBSEMU_BASE_READ_FILE_H_
