// One number through a printf format, as a string: the sweep's tables,
// plots and files.
#ifndef VERBSEMU_SWEEP_INTERNAL_FORMAT_H_
#define VERBSEMU_SWEEP_INTERNAL_FORMAT_H_

#include <cstdio>
#include <string>

namespace verbsemu::sweep::internal {

inline std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace verbsemu::sweep::internal

#endif  // VERBSEMU_SWEEP_INTERNAL_FORMAT_H_
