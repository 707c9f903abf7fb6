// The version of this libverbsemu.so, in a section of its own
// (`readelf -p .verbsemu.version libverbsemu.so`), read by
// `verbsemu --version` from the file without loading it. Kept by `strip`
// (it is allocated data), never exported.
#include "version/tail.h"

namespace {

[[gnu::used, gnu::section(".verbsemu.version")]] const char kShimVersion[] =
    VERBSEMU_SHIM_MARKER VERBSEMU_VERSION_TAIL;

}  // namespace
