// What follows a program's name in its version line, and the marker before
// it in libverbsemu.so (version/shim_note.cc).
#ifndef VERBSEMU_VERSION_TAIL_H_
#define VERBSEMU_VERSION_TAIL_H_

#include "version/version.h"

// "0.1.0 (git v0.1.0-3-gabcdef0, rdma-core 44.0 built against)"
#define VERBSEMU_VERSION_TAIL                                                  \
  VERBSEMU_RELEASE " (git " VERBSEMU_VERSION ", rdma-core " VERBSEMU_RDMA_CORE \
                   " built against)"

#define VERBSEMU_SHIM_MARKER "verbsemu-shim-version="

#endif  // VERBSEMU_VERSION_TAIL_H_
