// Check 1: which libibverbs.so.1 programs load here, its rdma-core release,
// and whether its own call to verbs_open_device can reach the shim.
#ifndef VERBSEMU_DOCTOR_LIBIBVERBS_CHECK_H_
#define VERBSEMU_DOCTOR_LIBIBVERBS_CHECK_H_

#include <string>

#include "doctor/finding.h"
#include "doctor/system_view.h"

namespace verbsemu::doctor {

// The library's path and release (info), its binding (info), or a problem
// when it cannot be loaded or read.
Findings CheckLibibverbs(const SystemView& view);

// "…/libibverbs.so.1.14.44.0" -> 44; 0 when the name has no release.
int RdmaCoreRelease(const std::string& path);

// The two binding lines, exactly as printed.
extern const char kBindsThroughPlt[];
extern const char kBindsInside[];

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_LIBIBVERBS_CHECK_H_
