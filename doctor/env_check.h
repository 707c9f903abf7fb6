// Check 3: environment settings that take traffic past the shim or change
// the stack it sees, and VERBSEMU_* values the shim would refuse.
#ifndef VERBSEMU_DOCTOR_ENV_CHECK_H_
#define VERBSEMU_DOCTOR_ENV_CHECK_H_

#include "doctor/finding.h"
#include "doctor/system_view.h"

namespace verbsemu::doctor {

// One problem line per setting found; an ok line when there is none.
Findings CheckEnvironment(const SystemView& view);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_ENV_CHECK_H_
